#!/usr/bin/env python3
"""Makes sakila.sql: the Sakila schema for SQLite and a small, consistent subset of its rows.

Usage: subset.py SQLITE_SCHEMA.sql DATA.sql > sakila.sql
  SQLITE_SCHEMA.sql: sqlite-sakila-db/sqlite-sakila-schema.sql of the jOOQ sakila repository
  DATA.sql: cockroachdb-sakila-db/cockroachdb-sakila-insert-data.sql of the same (COPY text)
Both are BSD-licensed (LICENSE beside this file). Run once; tests read sakila.sql only.
"""
import sys

schema_path, data_path = sys.argv[1], sys.argv[2]


def copy_blocks(path):
    """{table: (columns, rows)} from the COPY ... FROM stdin blocks."""
    out, table, cols = {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("COPY public."):
            head = line[len("COPY public."):]
            table = head.split(" ", 1)[0]
            cols = [c.strip() for c in head[head.index("(") + 1:head.index(")")].split(",")]
            out[table] = (cols, [])
        elif table is not None:
            if line == "\\.":
                table = None
            else:
                out[table][1].append([None if v == "\\N" else v for v in line.split("\t")])
    return out


data = copy_blocks(data_path)


def rows(table):
    cols, rs = data[table]
    return [dict(zip(cols, r)) for r in rs]


def lit(v):
    if v is None:
        return "NULL"
    try:
        float(v)
        return v
    except ValueError:
        return "'" + v.replace("'", "''") + "'"


def insert(table, cols, rs):
    for r in rs:
        print(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join(lit(r[c]) for c in cols)});")


films = {str(i) for i in range(1, 21)}
actors = {str(i) for i in range(1, 21)}
customers = {str(i) for i in range(1, 21)}
stores = rows("store")
staff = rows("staff")
customer = [r for r in rows("customer") if r["customer_id"] in customers]
for r in customer:
    r["active"] = "Y" if r["activebool"] == "t" else "N"
addresses = {r["address_id"] for r in stores + staff + customer}
address = [r for r in rows("address") if r["address_id"] in addresses]
cities = {r["city_id"] for r in address}
city = [r for r in rows("city") if r["city_id"] in cities]
inventory = [r for r in rows("inventory") if r["film_id"] in films]
inventories = {r["inventory_id"] for r in inventory}
rental = [r for r in rows("rental")
          if r["inventory_id"] in inventories and r["customer_id"] in customers]
rentals = {r["rental_id"] for r in rental}
payment = [r for r in rows("payment") if r["rental_id"] in rentals]
for r in payment:
    r["last_update"] = r["payment_date"]

print(open(schema_path, encoding="utf-8").read())
print("-- A subset of the rows (tests/data/sakila-sqlite/subset.py).")
insert("language", ["language_id", "name", "last_update"], rows("language"))
insert("country", ["country_id", "country", "last_update"], rows("country"))
insert("city", ["city_id", "city", "country_id", "last_update"], city)
insert("address", ["address_id", "address", "address2", "district", "city_id", "postal_code",
                   "phone", "last_update"], address)
insert("actor", ["actor_id", "first_name", "last_name", "last_update"],
       [r for r in rows("actor") if r["actor_id"] in actors])
insert("category", ["category_id", "name", "last_update"], rows("category"))
insert("film", ["film_id", "title", "description", "release_year", "language_id",
                "original_language_id", "rental_duration", "rental_rate", "length",
                "replacement_cost", "rating", "last_update"],
       [r for r in rows("film") if r["film_id"] in films])
insert("film_actor", ["actor_id", "film_id", "last_update"],
       [r for r in rows("film_actor") if r["film_id"] in films and r["actor_id"] in actors])
insert("film_category", ["film_id", "category_id", "last_update"],
       [r for r in rows("film_category") if r["film_id"] in films])
insert("film_text", ["film_id", "title", "description"],
       [r for r in rows("film") if r["film_id"] in films])
insert("staff", ["staff_id", "first_name", "last_name", "address_id", "email", "store_id",
                 "active", "username", "password", "last_update"],
       [dict(r, active="1" if r["active"] == "t" else "0") for r in staff])
insert("store", ["store_id", "manager_staff_id", "address_id", "last_update"], stores)
insert("customer", ["customer_id", "store_id", "first_name", "last_name", "email", "address_id",
                    "active", "create_date", "last_update"], customer)
insert("inventory", ["inventory_id", "film_id", "store_id", "last_update"], inventory)
insert("rental", ["rental_id", "rental_date", "inventory_id", "customer_id", "return_date",
                  "staff_id", "last_update"], rental)
insert("payment", ["payment_id", "customer_id", "staff_id", "rental_id", "amount",
                   "payment_date", "last_update"], payment)
