/*

Sakila for SQLite is a port of the Sakila example database available for MySQL, which was originally developed by Mike Hillyer of the MySQL AB documentation team. 
This project is designed to help database administrators to decide which database to use for development of new products
The user can run the same SQL against different kind of databases and compare the performance

License: BSD
Copyright DB Software Laboratory
http://www.etl-tools.com

*/

--
-- Table structure for table actor
--
--DROP TABLE actor;

CREATE TABLE actor (
  actor_id INTEGER NOT NULL ,
  first_name VARCHAR(45) NOT NULL,
  last_name VARCHAR(45) NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (actor_id)
  )
  ;

CREATE  INDEX idx_actor_last_name ON actor(last_name)
;
 
CREATE TRIGGER actor_trigger_ai AFTER INSERT ON actor
 BEGIN
  UPDATE actor SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER actor_trigger_au AFTER UPDATE ON actor
 BEGIN
  UPDATE actor SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

 --
-- Table structure for table country
--

CREATE TABLE country (
  country_id INTEGER NOT NULL,
  country VARCHAR(50) NOT NULL,
  last_update TIMESTAMP,
  PRIMARY KEY  (country_id)
)
;

CREATE TRIGGER country_trigger_ai AFTER INSERT ON country
 BEGIN
  UPDATE country SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER country_trigger_au AFTER UPDATE ON country
 BEGIN
  UPDATE country SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table city
--

CREATE TABLE city (
  city_id INTEGER NOT NULL,
  city VARCHAR(50) NOT NULL,
  country_id INT NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (city_id),
  CONSTRAINT fk_city_country FOREIGN KEY (country_id) REFERENCES country (country_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;
CREATE  INDEX idx_fk_country_id ON city(country_id)
;

CREATE TRIGGER city_trigger_ai AFTER INSERT ON city
 BEGIN
  UPDATE city SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER city_trigger_au AFTER UPDATE ON city
 BEGIN
  UPDATE city SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table address
--

CREATE TABLE address (
  address_id INTEGER NOT NULL,
  address VARCHAR(50) NOT NULL,
  address2 VARCHAR(50) DEFAULT NULL,
  district VARCHAR(20) NOT NULL,
  city_id INT  NOT NULL,
  postal_code VARCHAR(10) DEFAULT NULL,
  phone VARCHAR(20) NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (address_id),
  CONSTRAINT fk_address_city FOREIGN KEY (city_id) REFERENCES city (city_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;

CREATE  INDEX idx_fk_city_id ON address(city_id)
;

CREATE TRIGGER address_trigger_ai AFTER INSERT ON address
 BEGIN
  UPDATE address SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER address_trigger_au AFTER UPDATE ON address
 BEGIN
  UPDATE address SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table language
--

CREATE TABLE language (
  language_id INTEGER NOT NULL ,
  name CHAR(20) NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY (language_id)
)
;

CREATE TRIGGER language_trigger_ai AFTER INSERT ON language
 BEGIN
  UPDATE language SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER language_trigger_au AFTER UPDATE ON language
 BEGIN
  UPDATE language SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table category
--

CREATE TABLE category (
  category_id INTEGER NOT NULL,
  name VARCHAR(25) NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (category_id)
);

CREATE TRIGGER category_trigger_ai AFTER INSERT ON category
 BEGIN
  UPDATE category SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER category_trigger_au AFTER UPDATE ON category
 BEGIN
  UPDATE category SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table customer
--

CREATE TABLE customer (
  customer_id INTEGER NOT NULL,
  store_id INT NOT NULL,
  first_name VARCHAR(45) NOT NULL,
  last_name VARCHAR(45) NOT NULL,
  email VARCHAR(50) DEFAULT NULL,
  address_id INT NOT NULL,
  active CHAR(1) DEFAULT 'Y' NOT NULL,
  create_date TIMESTAMP NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (customer_id),
  CONSTRAINT fk_customer_store FOREIGN KEY (store_id) REFERENCES store (store_id) ON DELETE NO ACTION ON UPDATE CASCADE,
  CONSTRAINT fk_customer_address FOREIGN KEY (address_id) REFERENCES address (address_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;

CREATE  INDEX idx_customer_fk_store_id ON customer(store_id)
;
CREATE  INDEX idx_customer_fk_address_id ON customer(address_id)
;
CREATE  INDEX idx_customer_last_name ON customer(last_name)
;

CREATE TRIGGER customer_trigger_ai AFTER INSERT ON customer
 BEGIN
  UPDATE customer SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER customer_trigger_au AFTER UPDATE ON customer
 BEGIN
  UPDATE customer SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table film
--

CREATE TABLE film (
  film_id INTEGER NOT NULL,
  title VARCHAR(255) NOT NULL,
  description BLOB SUB_TYPE TEXT DEFAULT NULL,
  release_year VARCHAR(4) DEFAULT NULL,
  language_id INT NOT NULL,
  original_language_id INT DEFAULT NULL,
  rental_duration SMALLINT  DEFAULT 3 NOT NULL,
  rental_rate DECIMAL(4,2) DEFAULT 4.99 NOT NULL,
  length SMALLINT DEFAULT NULL,
  replacement_cost DECIMAL(5,2) DEFAULT 19.99 NOT NULL,
  rating VARCHAR(10) DEFAULT 'G',
  special_features VARCHAR(100) DEFAULT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (film_id),
  CONSTRAINT CHECK_special_features CHECK(special_features is null or
                                                           special_features like '%Trailers%' or
                                                           special_features like '%Commentaries%' or
                                                           special_features like '%Deleted Scenes%' or
                                                           special_features like '%Behind the Scenes%'),
  CONSTRAINT CHECK_special_rating CHECK(rating in ('G','PG','PG-13','R','NC-17')),
  CONSTRAINT fk_film_language FOREIGN KEY (language_id) REFERENCES language (language_id) ,
  CONSTRAINT fk_film_language_original FOREIGN KEY (original_language_id) REFERENCES language (language_id)
)
;
CREATE  INDEX idx_fk_language_id ON film(language_id)
;
CREATE  INDEX idx_fk_original_language_id ON film(original_language_id)
;

CREATE TRIGGER film_trigger_ai AFTER INSERT ON film
 BEGIN
  UPDATE film SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER film_trigger_au AFTER UPDATE ON film
 BEGIN
  UPDATE film SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table film_actor
--

CREATE TABLE film_actor (
  actor_id INT NOT NULL,
  film_id  INT NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (actor_id,film_id),
  CONSTRAINT fk_film_actor_actor FOREIGN KEY (actor_id) REFERENCES actor (actor_id) ON DELETE NO ACTION ON UPDATE CASCADE,
  CONSTRAINT fk_film_actor_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;

CREATE  INDEX idx_fk_film_actor_film ON film_actor(film_id)
;

CREATE  INDEX idx_fk_film_actor_actor ON film_actor(actor_id) 
;

CREATE TRIGGER film_actor_trigger_ai AFTER INSERT ON film_actor
 BEGIN
  UPDATE film_actor SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER film_actor_trigger_au AFTER UPDATE ON film_actor
 BEGIN
  UPDATE film_actor SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;


--
-- Table structure for table film_category
--

CREATE TABLE film_category (
  film_id INT NOT NULL,
  category_id INT  NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY (film_id, category_id),
  CONSTRAINT fk_film_category_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE NO ACTION ON UPDATE CASCADE,
  CONSTRAINT fk_film_category_category FOREIGN KEY (category_id) REFERENCES category (category_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;

CREATE  INDEX idx_fk_film_category_film ON film_category(film_id)
;

CREATE  INDEX idx_fk_film_category_category ON film_category(category_id)
;

CREATE TRIGGER film_category_trigger_ai AFTER INSERT ON film_category
 BEGIN
  UPDATE film_category SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER film_category_trigger_au AFTER UPDATE ON film_category
 BEGIN
  UPDATE film_category SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table film_text
--

CREATE TABLE film_text (
  film_id INTEGER NOT NULL,
  title VARCHAR(255) NOT NULL,
  description BLOB SUB_TYPE TEXT,
  PRIMARY KEY  (film_id)
)
;

--
-- Table structure for table inventory
--

CREATE TABLE inventory (
  inventory_id INTEGER NOT NULL,
  film_id INT NOT NULL,
  store_id INT NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (inventory_id),
  CONSTRAINT fk_inventory_store FOREIGN KEY (store_id) REFERENCES store (store_id) ON DELETE NO ACTION ON UPDATE CASCADE,
  CONSTRAINT fk_inventory_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;

CREATE  INDEX idx_fk_film_id ON inventory(film_id)
;

CREATE  INDEX idx_fk_film_id_store_id ON inventory(store_id,film_id)
;

CREATE TRIGGER inventory_trigger_ai AFTER INSERT ON inventory
 BEGIN
  UPDATE inventory SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER inventory_trigger_au AFTER UPDATE ON inventory
 BEGIN
  UPDATE inventory SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table staff
--

CREATE TABLE staff (
  staff_id INTEGER NOT NULL,
  first_name VARCHAR(45) NOT NULL,
  last_name VARCHAR(45) NOT NULL,
  address_id INT NOT NULL,
  picture BLOB DEFAULT NULL,
  email VARCHAR(50) DEFAULT NULL,
  store_id INT NOT NULL,
  active SMALLINT DEFAULT 1 NOT NULL,
  username VARCHAR(16) NOT NULL,
  password VARCHAR(40) DEFAULT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (staff_id),
  CONSTRAINT fk_staff_store FOREIGN KEY (store_id) REFERENCES store (store_id) ON DELETE NO ACTION ON UPDATE CASCADE,
  CONSTRAINT fk_staff_address FOREIGN KEY (address_id) REFERENCES address (address_id) ON DELETE NO ACTION ON UPDATE CASCADE
)
;
CREATE  INDEX idx_fk_staff_store_id ON staff(store_id)
;

CREATE  INDEX idx_fk_staff_address_id ON staff(address_id)
;

CREATE TRIGGER staff_trigger_ai AFTER INSERT ON staff
 BEGIN
  UPDATE staff SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER staff_trigger_au AFTER UPDATE ON staff
 BEGIN
  UPDATE staff SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table store
--

CREATE TABLE store (
  store_id INTEGER NOT NULL,
  manager_staff_id INT NOT NULL,
  address_id INT NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (store_id),
  CONSTRAINT fk_store_staff FOREIGN KEY (manager_staff_id) REFERENCES staff (staff_id) ,
  CONSTRAINT fk_store_address FOREIGN KEY (address_id) REFERENCES address (address_id)
)
;

CREATE  INDEX idx_store_fk_manager_staff_id ON store(manager_staff_id)
;

CREATE  INDEX idx_fk_store_address ON store(address_id)
;

CREATE TRIGGER store_trigger_ai AFTER INSERT ON store
 BEGIN
  UPDATE store SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER store_trigger_au AFTER UPDATE ON store
 BEGIN
  UPDATE store SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

--
-- Table structure for table payment
--

CREATE TABLE payment (
  payment_id INTEGER NOT NULL,
  customer_id INT  NOT NULL,
  staff_id INT NOT NULL,
  rental_id INT DEFAULT NULL,
  amount DECIMAL(5,2) NOT NULL,
  payment_date TIMESTAMP NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (payment_id),
  CONSTRAINT fk_payment_rental FOREIGN KEY (rental_id) REFERENCES rental (rental_id) ON DELETE SET NULL ON UPDATE CASCADE,
  CONSTRAINT fk_payment_customer FOREIGN KEY (customer_id) REFERENCES customer (customer_id) ,
  CONSTRAINT fk_payment_staff FOREIGN KEY (staff_id) REFERENCES staff (staff_id)
)
;
CREATE  INDEX idx_fk_staff_id ON payment(staff_id)
;
CREATE  INDEX idx_fk_customer_id ON payment(customer_id)
;

CREATE TRIGGER payment_trigger_ai AFTER INSERT ON payment
 BEGIN
  UPDATE payment SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER payment_trigger_au AFTER UPDATE ON payment
 BEGIN
  UPDATE payment SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;

CREATE TABLE rental (
  rental_id INTEGER NOT NULL,
  rental_date TIMESTAMP NOT NULL,
  inventory_id INT  NOT NULL,
  customer_id INT  NOT NULL,
  return_date TIMESTAMP DEFAULT NULL,
  staff_id INT  NOT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY (rental_id),
  CONSTRAINT fk_rental_staff FOREIGN KEY (staff_id) REFERENCES staff (staff_id) ,
  CONSTRAINT fk_rental_inventory FOREIGN KEY (inventory_id) REFERENCES inventory (inventory_id) ,
  CONSTRAINT fk_rental_customer FOREIGN KEY (customer_id) REFERENCES customer (customer_id)
)
;
CREATE INDEX idx_rental_fk_inventory_id ON rental(inventory_id)
;
CREATE INDEX idx_rental_fk_customer_id ON rental(customer_id)
;
CREATE INDEX idx_rental_fk_staff_id ON rental(staff_id)
;
CREATE UNIQUE INDEX   idx_rental_uq  ON rental (rental_date,inventory_id,customer_id)
;

CREATE TRIGGER rental_trigger_ai AFTER INSERT ON rental
 BEGIN
  UPDATE rental SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
 
CREATE TRIGGER rental_trigger_au AFTER UPDATE ON rental
 BEGIN
  UPDATE rental SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END
;
--
-- View structure for view customer_list
--

CREATE VIEW customer_list
AS
SELECT cu.customer_id AS ID,
       cu.first_name||' '||cu.last_name AS name,
       a.address AS address,
       a.postal_code AS zip_code,
       a.phone AS phone,
       city.city AS city,
       country.country AS country,
       case when cu.active=1 then 'active' else '' end AS notes,
       cu.store_id AS SID
FROM customer AS cu JOIN address AS a ON cu.address_id = a.address_id JOIN city ON a.city_id = city.city_id
    JOIN country ON city.country_id = country.country_id
;
--
-- View structure for view film_list
--

CREATE VIEW film_list
AS
SELECT film.film_id AS FID,
       film.title AS title,
       film.description AS description,
       category.name AS category,
       film.rental_rate AS price,
       film.length AS length,
       film.rating AS rating,
       actor.first_name||' '||actor.last_name AS actors
FROM category LEFT JOIN film_category ON category.category_id = film_category.category_id LEFT JOIN film ON film_category.film_id = film.film_id
        JOIN film_actor ON film.film_id = film_actor.film_id
    JOIN actor ON film_actor.actor_id = actor.actor_id
;

--
-- View structure for view staff_list
--

CREATE VIEW staff_list
AS
SELECT s.staff_id AS ID,
       s.first_name||' '||s.last_name AS name,
       a.address AS address,
       a.postal_code AS zip_code,
       a.phone AS phone,
       city.city AS city,
       country.country AS country,
       s.store_id AS SID
FROM staff AS s JOIN address AS a ON s.address_id = a.address_id JOIN city ON a.city_id = city.city_id
    JOIN country ON city.country_id = country.country_id
;
--
-- View structure for view sales_by_store
--

CREATE VIEW sales_by_store
AS
SELECT
  s.store_id
 ,c.city||','||cy.country AS store
 ,m.first_name||' '||m.last_name AS manager
 ,SUM(p.amount) AS total_sales
FROM payment AS p
INNER JOIN rental AS r ON p.rental_id = r.rental_id
INNER JOIN inventory AS i ON r.inventory_id = i.inventory_id
INNER JOIN store AS s ON i.store_id = s.store_id
INNER JOIN address AS a ON s.address_id = a.address_id
INNER JOIN city AS c ON a.city_id = c.city_id
INNER JOIN country AS cy ON c.country_id = cy.country_id
INNER JOIN staff AS m ON s.manager_staff_id = m.staff_id
GROUP BY  
  s.store_id
, c.city||','||cy.country
, m.first_name||' '||m.last_name
;
--
-- View structure for view sales_by_film_category
--
-- Note that total sales will add up to >100% because
-- some titles belong to more than 1 category
--

CREATE VIEW sales_by_film_category
AS
SELECT
c.name AS category
, SUM(p.amount) AS total_sales
FROM payment AS p
INNER JOIN rental AS r ON p.rental_id = r.rental_id
INNER JOIN inventory AS i ON r.inventory_id = i.inventory_id
INNER JOIN film AS f ON i.film_id = f.film_id
INNER JOIN film_category AS fc ON f.film_id = fc.film_id
INNER JOIN category AS c ON fc.category_id = c.category_id
GROUP BY c.name
;

--
-- View structure for view actor_info
--

/*
CREATE VIEW actor_info
AS
SELECT
a.actor_id,
a.first_name,
a.last_name,
GROUP_CONCAT(DISTINCT CONCAT(c.name, ': ',
        (SELECT GROUP_CONCAT(f.title ORDER BY f.title SEPARATOR ', ')
                    FROM sakila.film f
                    INNER JOIN sakila.film_category fc
                      ON f.film_id = fc.film_id
                    INNER JOIN sakila.film_actor fa
                      ON f.film_id = fa.film_id
                    WHERE fc.category_id = c.category_id
                    AND fa.actor_id = a.actor_id
                 )
             )
             ORDER BY c.name SEPARATOR '; ')
AS film_info
FROM sakila.actor a
LEFT JOIN sakila.film_actor fa
  ON a.actor_id = fa.actor_id
LEFT JOIN sakila.film_category fc
  ON fa.film_id = fc.film_id
LEFT JOIN sakila.category c
  ON fc.category_id = c.category_id
GROUP BY a.actor_id, a.first_name, a.last_name;
*/

-- TO DO PROCEDURES
-- TO DO TRIGGERS


-- A subset of the rows (tests/data/sakila-sqlite/subset.py).
INSERT INTO language (language_id, name, last_update) VALUES (5, 'French              ', '2006-02-15 05:02:19');
INSERT INTO language (language_id, name, last_update) VALUES (1, 'English             ', '2006-02-15 05:02:19');
INSERT INTO language (language_id, name, last_update) VALUES (6, 'German              ', '2006-02-15 05:02:19');
INSERT INTO language (language_id, name, last_update) VALUES (4, 'Mandarin            ', '2006-02-15 05:02:19');
INSERT INTO language (language_id, name, last_update) VALUES (2, 'Italian             ', '2006-02-15 05:02:19');
INSERT INTO language (language_id, name, last_update) VALUES (3, 'Japanese            ', '2006-02-15 05:02:19');
INSERT INTO country (country_id, country, last_update) VALUES (81, 'Saint Vincent and the Grenadines', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (61, 'Moldova', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (45, 'Indonesia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (5, 'Anguilla', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (1, 'Afghanistan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (98, 'Turkmenistan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (102, 'United Kingdom', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (49, 'Italy', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (11, 'Bahrain', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (78, 'Romania', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (64, 'Myanmar', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (107, 'Yemen', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (41, 'Holy See (Vatican City State)', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (29, 'Egypt', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (89, 'Sudan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (52, 'Kenya', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (55, 'Liechtenstein', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (13, 'Belarus', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (21, 'Chad', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (43, 'Hungary', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (38, 'Germany', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (86, 'South Korea', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (91, 'Switzerland', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (90, 'Sweden', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (16, 'Brunei', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (59, 'Malaysia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (12, 'Bangladesh', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (73, 'Paraguay', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (40, 'Greenland', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (97, 'Turkey', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (15, 'Brazil', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (44, 'India', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (6, 'Argentina', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (51, 'Kazakstan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (105, 'Vietnam', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (7, 'Armenia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (96, 'Tunisia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (42, 'Hong Kong', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (50, 'Japan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (32, 'Faroe Islands', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (48, 'Israel', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (47, 'Iraq', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (9, 'Austria', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (77, 'Puerto Rico', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (94, 'Thailand', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (65, 'Nauru', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (101, 'United Arab Emirates', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (83, 'Senegal', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (71, 'Oman', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (60, 'Mexico', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (92, 'Taiwan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (17, 'Bulgaria', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (10, 'Azerbaijan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (103, 'United States', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (72, 'Pakistan', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (19, 'Cameroon', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (36, 'French Polynesia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (58, 'Malawi', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (70, 'North Korea', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (109, 'Zambia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (34, 'France', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (53, 'Kuwait', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (54, 'Latvia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (23, 'China', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (69, 'Nigeria', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (87, 'Spain', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (4, 'Angola', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (18, 'Cambodia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (66, 'Nepal', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (30, 'Estonia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (68, 'New Zealand', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (57, 'Madagascar', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (88, 'Sri Lanka', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (100, 'Ukraine', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (37, 'Gambia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (99, 'Tuvalu', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (75, 'Philippines', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (84, 'Slovakia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (63, 'Mozambique', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (67, 'Netherlands', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (27, 'Dominican Republic', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (79, 'Runion', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (2, 'Algeria', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (8, 'Australia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (46, 'Iran', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (104, 'Venezuela', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (80, 'Russian Federation', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (14, 'Bolivia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (35, 'French Guiana', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (56, 'Lithuania', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (93, 'Tanzania', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (22, 'Chile', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (24, 'Colombia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (26, 'Czech Republic', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (82, 'Saudi Arabia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (39, 'Greece', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (62, 'Morocco', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (28, 'Ecuador', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (74, 'Peru', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (33, 'Finland', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (31, 'Ethiopia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (76, 'Poland', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (108, 'Yugoslavia', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (85, 'South Africa', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (106, 'Virgin Islands, U.S.', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (95, 'Tonga', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (3, 'American Samoa', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (25, 'Congo, The Democratic Republic of the', '2006-02-15 04:44:00');
INSERT INTO country (country_id, country, last_update) VALUES (20, 'Canada', '2006-02-15 04:44:00');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (463, 'Sasebo', 50, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (38, 'Athenai', 39, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (349, 'Myingyan', 64, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (200, 'Hamilton', 68, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (384, 'Osmaniye', 97, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (576, 'Woodridge', 8, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (295, 'Laredo', 103, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (280, 'Kragujevac', 108, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (582, 'Yamuna Nagar', 44, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (267, 'Kimberley', 85, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (156, 'Elista', 80, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (440, 'Sagamihara', 50, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (495, 'Southend-on-Sea', 102, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (361, 'Nantou', 92, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (120, 'Citrus Heights', 103, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (449, 'San Bernardino', 103, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (327, 'Mardan', 72, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (76, 'Bhopal', 44, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (300, 'Lethbridge', 20, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (162, 'Esfahan', 46, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (252, 'Kaduna', 69, '2006-02-15 04:45:25');
INSERT INTO city (city_id, city, country_id, last_update) VALUES (329, 'Masqat', 71, '2006-02-15 04:45:25');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (5, '1913 Hanoi Way', NULL, ' ', 463, 35200, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (1, '47 MySakila Drive', NULL, ' ', 300, NULL, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (11, '900 Santiago de Compostela Parkway', NULL, ' ', 280, 93896, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (13, '613 Korolev Drive', NULL, ' ', 329, 45844, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (21, '270 Toulon Boulevard', NULL, ' ', 156, 81766, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (16, '808 Bhopal Manor', NULL, ' ', 582, 10672, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (12, '478 Joliet Way', NULL, ' ', 200, 77948, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (15, '1542 Tarlac Parkway', NULL, ' ', 440, 1027, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (6, '1121 Loja Avenue', NULL, ' ', 449, 17886, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (7, '692 Joliet Street', NULL, ' ', 38, 83579, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (9, '53 Idfu Parkway', NULL, ' ', 361, 42399, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (17, '270 Amroha Parkway', NULL, ' ', 384, 29610, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (10, '1795 Santiago de Compostela Way', NULL, ' ', 295, 18743, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (19, '419 Iligan Lane', NULL, ' ', 76, 72878, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (23, '1417 Lancaster Avenue', NULL, ' ', 267, 72192, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (4, '1411 Lillydale Drive', NULL, ' ', 576, NULL, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (18, '770 Bydgoszcz Avenue', NULL, ' ', 120, 16266, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (2, '28 MySQL Boulevard', NULL, ' ', 576, NULL, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (8, '1566 Inegl Manor', NULL, ' ', 349, 53561, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (14, '1531 Sal Drive', NULL, ' ', 162, 53628, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (22, '320 Brest Avenue', NULL, ' ', 252, 43331, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (24, '1688 Okara Way', NULL, ' ', 327, 21954, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (3, '23 Workhaven Lane', NULL, ' ', 300, NULL, ' ', '2006-02-15 04:45:30');
INSERT INTO address (address_id, address, address2, district, city_id, postal_code, phone, last_update) VALUES (20, '360 Toulouse Parkway', NULL, ' ', 495, 54308, ' ', '2006-02-15 04:45:30');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (5, 'JOHNNY', 'LOLLOBRIGIDA', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (1, 'PENELOPE', 'GUINESS', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (11, 'ZERO', 'CAGE', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (13, 'UMA', 'WOOD', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (16, 'FRED', 'COSTNER', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (12, 'KARL', 'BERRY', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (15, 'CUBA', 'OLIVIER', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (6, 'BETTE', 'NICHOLSON', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (7, 'GRACE', 'MOSTEL', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (9, 'JOE', 'SWANK', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (17, 'HELEN', 'VOIGHT', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (10, 'CHRISTIAN', 'GABLE', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (19, 'BOB', 'FAWCETT', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (4, 'JENNIFER', 'DAVIS', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (18, 'DAN', 'TORN', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (2, 'NICK', 'WAHLBERG', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (8, 'MATTHEW', 'JOHANSSON', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (14, 'VIVIEN', 'BERGEN', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (3, 'ED', 'CHASE', '2006-02-15 04:34:33');
INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES (20, 'LUCILLE', 'TRACY', '2006-02-15 04:34:33');
INSERT INTO category (category_id, name, last_update) VALUES (5, 'Comedy', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (1, 'Action', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (11, 'Horror', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (13, 'New', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (16, 'Travel', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (12, 'Music', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (15, 'Sports', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (6, 'Documentary', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (7, 'Drama', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (9, 'Foreign', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (10, 'Games', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (4, 'Classics', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (2, 'Animation', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (8, 'Family', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (14, 'Sci-Fi', '2006-02-15 04:46:27');
INSERT INTO category (category_id, name, last_update) VALUES (3, 'Children', '2006-02-15 04:46:27');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (5, 'AFRICAN EGG', 'A Fast-Paced Documentary of a Pastry Chef And a Dentist who must Pursue a Forensic Psychologist in The Gulf of Mexico', 2006, 1, NULL, 6, 2.99, 130, 22.99, 'G', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (1, 'ACADEMY DINOSAUR', 'A Epic Drama of a Feminist And a Mad Scientist who must Battle a Teacher in The Canadian Rockies', 2006, 1, NULL, 6, 0.99, 86, 20.99, 'PG', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (11, 'ALAMO VIDEOTAPE', 'A Boring Epistle of a Butler And a Cat who must Fight a Pastry Chef in A MySQL Convention', 2006, 1, NULL, 6, 0.99, 126, 16.99, 'G', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (13, 'ALI FOREVER', 'A Action-Packed Drama of a Dentist And a Crocodile who must Battle a Feminist in The Canadian Rockies', 2006, 1, NULL, 4, 4.99, 150, 21.99, 'PG', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (16, 'ALLEY EVOLUTION', 'A Fast-Paced Drama of a Robot And a Composer who must Battle a Astronaut in New Orleans', 2006, 1, NULL, 6, 2.99, 180, 23.99, 'NC-17', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (12, 'ALASKA PHANTOM', 'A Fanciful Saga of a Hunter And a Pastry Chef who must Vanquish a Boy in Australia', 2006, 1, NULL, 6, 0.99, 136, 22.99, 'PG', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (15, 'ALIEN CENTER', 'A Brilliant Drama of a Cat And a Mad Scientist who must Battle a Feminist in A MySQL Convention', 2006, 1, NULL, 5, 2.99, 46, 10.99, 'NC-17', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (6, 'AGENT TRUMAN', 'A Intrepid Panorama of a Robot And a Boy who must Escape a Sumo Wrestler in Ancient China', 2006, 1, NULL, 3, 2.99, 169, 17.99, 'PG', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (7, 'AIRPLANE SIERRA', 'A Touching Saga of a Hunter And a Butler who must Discover a Butler in A Jet Boat', 2006, 1, NULL, 6, 4.99, 62, 28.99, 'PG-13', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (9, 'ALABAMA DEVIL', 'A Thoughtful Panorama of a Database Administrator And a Mad Scientist who must Outgun a Mad Scientist in A Jet Boat', 2006, 1, NULL, 3, 2.99, 114, 21.99, 'PG-13', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (17, 'ALONE TRIP', 'A Fast-Paced Character Study of a Composer And a Dog who must Outgun a Boat in An Abandoned Fun House', 2006, 1, NULL, 3, 0.99, 82, 14.99, 'R', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (10, 'ALADDIN CALENDAR', 'A Action-Packed Tale of a Man And a Lumberjack who must Reach a Feminist in Ancient China', 2006, 1, NULL, 6, 4.99, 63, 24.99, 'NC-17', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (19, 'AMADEUS HOLY', 'A Emotional Display of a Pioneer And a Technical Writer who must Battle a Man in A Baloon', 2006, 1, NULL, 6, 0.99, 113, 20.99, 'PG', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (4, 'AFFAIR PREJUDICE', 'A Fanciful Documentary of a Frisbee And a Lumberjack who must Chase a Monkey in A Shark Tank', 2006, 1, NULL, 5, 2.99, 117, 26.99, 'G', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (18, 'ALTER VICTORY', 'A Thoughtful Drama of a Composer And a Feminist who must Meet a Secret Agent in The Canadian Rockies', 2006, 1, NULL, 6, 0.99, 57, 27.99, 'PG-13', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (2, 'ACE GOLDFINGER', 'A Astounding Epistle of a Database Administrator And a Explorer who must Find a Car in Ancient China', 2006, 1, NULL, 3, 4.99, 48, 12.99, 'G', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (8, 'AIRPORT POLLOCK', 'A Epic Tale of a Moose And a Girl who must Confront a Monkey in Ancient India', 2006, 1, NULL, 6, 4.99, 54, 15.99, 'R', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (14, 'ALICE FANTASIA', 'A Emotional Drama of a A Shark And a Database Administrator who must Vanquish a Pioneer in Soviet Georgia', 2006, 1, NULL, 6, 0.99, 94, 23.99, 'NC-17', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (3, 'ADAPTATION HOLES', 'A Astounding Reflection of a Lumberjack And a Car who must Sink a Lumberjack in A Baloon Factory', 2006, 1, NULL, 7, 2.99, 50, 18.99, 'NC-17', '2006-02-15 05:03:42');
INSERT INTO film (film_id, title, description, release_year, language_id, original_language_id, rental_duration, rental_rate, length, replacement_cost, rating, last_update) VALUES (20, 'AMELIE HELLFIGHTERS', 'A Boring Drama of a Woman And a Squirrel who must Conquer a Student in A Baloon', 2006, 1, NULL, 4, 4.99, 79, 23.99, 'R', '2006-02-15 05:03:42');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (1, 1, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (13, 17, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (20, 1, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (2, 3, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (3, 17, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (5, 19, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (19, 2, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (19, 3, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (12, 16, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (12, 17, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (10, 1, '2006-02-15 05:05:03');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (10, 9, '2006-02-15 05:05:03');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (4, 11, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (14, 4, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (1, 6, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (13, 11, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (20, 12, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (2, 11, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (7, 5, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (11, 9, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (15, 9, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (3, 6, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (8, 11, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (5, 8, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (16, 9, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (6, 9, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (19, 1, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (9, 11, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (12, 12, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (18, 2, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (10, 15, '2006-02-15 05:07:09');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (17, 12, '2006-02-15 05:07:09');
INSERT INTO film_text (film_id, title, description) VALUES (5, 'AFRICAN EGG', 'A Fast-Paced Documentary of a Pastry Chef And a Dentist who must Pursue a Forensic Psychologist in The Gulf of Mexico');
INSERT INTO film_text (film_id, title, description) VALUES (1, 'ACADEMY DINOSAUR', 'A Epic Drama of a Feminist And a Mad Scientist who must Battle a Teacher in The Canadian Rockies');
INSERT INTO film_text (film_id, title, description) VALUES (11, 'ALAMO VIDEOTAPE', 'A Boring Epistle of a Butler And a Cat who must Fight a Pastry Chef in A MySQL Convention');
INSERT INTO film_text (film_id, title, description) VALUES (13, 'ALI FOREVER', 'A Action-Packed Drama of a Dentist And a Crocodile who must Battle a Feminist in The Canadian Rockies');
INSERT INTO film_text (film_id, title, description) VALUES (16, 'ALLEY EVOLUTION', 'A Fast-Paced Drama of a Robot And a Composer who must Battle a Astronaut in New Orleans');
INSERT INTO film_text (film_id, title, description) VALUES (12, 'ALASKA PHANTOM', 'A Fanciful Saga of a Hunter And a Pastry Chef who must Vanquish a Boy in Australia');
INSERT INTO film_text (film_id, title, description) VALUES (15, 'ALIEN CENTER', 'A Brilliant Drama of a Cat And a Mad Scientist who must Battle a Feminist in A MySQL Convention');
INSERT INTO film_text (film_id, title, description) VALUES (6, 'AGENT TRUMAN', 'A Intrepid Panorama of a Robot And a Boy who must Escape a Sumo Wrestler in Ancient China');
INSERT INTO film_text (film_id, title, description) VALUES (7, 'AIRPLANE SIERRA', 'A Touching Saga of a Hunter And a Butler who must Discover a Butler in A Jet Boat');
INSERT INTO film_text (film_id, title, description) VALUES (9, 'ALABAMA DEVIL', 'A Thoughtful Panorama of a Database Administrator And a Mad Scientist who must Outgun a Mad Scientist in A Jet Boat');
INSERT INTO film_text (film_id, title, description) VALUES (17, 'ALONE TRIP', 'A Fast-Paced Character Study of a Composer And a Dog who must Outgun a Boat in An Abandoned Fun House');
INSERT INTO film_text (film_id, title, description) VALUES (10, 'ALADDIN CALENDAR', 'A Action-Packed Tale of a Man And a Lumberjack who must Reach a Feminist in Ancient China');
INSERT INTO film_text (film_id, title, description) VALUES (19, 'AMADEUS HOLY', 'A Emotional Display of a Pioneer And a Technical Writer who must Battle a Man in A Baloon');
INSERT INTO film_text (film_id, title, description) VALUES (4, 'AFFAIR PREJUDICE', 'A Fanciful Documentary of a Frisbee And a Lumberjack who must Chase a Monkey in A Shark Tank');
INSERT INTO film_text (film_id, title, description) VALUES (18, 'ALTER VICTORY', 'A Thoughtful Drama of a Composer And a Feminist who must Meet a Secret Agent in The Canadian Rockies');
INSERT INTO film_text (film_id, title, description) VALUES (2, 'ACE GOLDFINGER', 'A Astounding Epistle of a Database Administrator And a Explorer who must Find a Car in Ancient China');
INSERT INTO film_text (film_id, title, description) VALUES (8, 'AIRPORT POLLOCK', 'A Epic Tale of a Moose And a Girl who must Confront a Monkey in Ancient India');
INSERT INTO film_text (film_id, title, description) VALUES (14, 'ALICE FANTASIA', 'A Emotional Drama of a A Shark And a Database Administrator who must Vanquish a Pioneer in Soviet Georgia');
INSERT INTO film_text (film_id, title, description) VALUES (3, 'ADAPTATION HOLES', 'A Astounding Reflection of a Lumberjack And a Car who must Sink a Lumberjack in A Baloon Factory');
INSERT INTO film_text (film_id, title, description) VALUES (20, 'AMELIE HELLFIGHTERS', 'A Boring Drama of a Woman And a Squirrel who must Conquer a Student in A Baloon');
INSERT INTO staff (staff_id, first_name, last_name, address_id, email, store_id, active, username, password, last_update) VALUES (1, 'Mike', 'Hillyer', 3, 'Mike.Hillyer@sakilastaff.com', 1, 1, 'Mike', '8cb2237d0679ca88db6464eac60da96345513964', '2006-02-15 04:57:16');
INSERT INTO staff (staff_id, first_name, last_name, address_id, email, store_id, active, username, password, last_update) VALUES (2, 'Jon', 'Stephens', 4, 'Jon.Stephens@sakilastaff.com', 2, 1, 'Jon', '8cb2237d0679ca88db6464eac60da96345513964', '2006-02-15 04:57:16');
INSERT INTO store (store_id, manager_staff_id, address_id, last_update) VALUES (1, 1, 1, '2006-02-15 04:57:12');
INSERT INTO store (store_id, manager_staff_id, address_id, last_update) VALUES (2, 2, 2, '2006-02-15 04:57:12');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (5, 1, 'ELIZABETH', 'BROWN', 'ELIZABETH.BROWN@sakilacustomer.org', 9, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (1, 1, 'MARY', 'SMITH', 'MARY.SMITH@sakilacustomer.org', 5, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (11, 2, 'LISA', 'ANDERSON', 'LISA.ANDERSON@sakilacustomer.org', 15, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (13, 2, 'KAREN', 'JACKSON', 'KAREN.JACKSON@sakilacustomer.org', 17, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (16, 2, 'SANDRA', 'MARTIN', 'SANDRA.MARTIN@sakilacustomer.org', 20, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (12, 1, 'NANCY', 'THOMAS', 'NANCY.THOMAS@sakilacustomer.org', 16, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (15, 1, 'HELEN', 'HARRIS', 'HELEN.HARRIS@sakilacustomer.org', 19, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (6, 2, 'JENNIFER', 'DAVIS', 'JENNIFER.DAVIS@sakilacustomer.org', 10, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (7, 1, 'MARIA', 'MILLER', 'MARIA.MILLER@sakilacustomer.org', 11, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (9, 2, 'MARGARET', 'MOORE', 'MARGARET.MOORE@sakilacustomer.org', 13, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (17, 1, 'DONNA', 'THOMPSON', 'DONNA.THOMPSON@sakilacustomer.org', 21, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (10, 1, 'DOROTHY', 'TAYLOR', 'DOROTHY.TAYLOR@sakilacustomer.org', 14, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (19, 1, 'RUTH', 'MARTINEZ', 'RUTH.MARTINEZ@sakilacustomer.org', 23, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (4, 2, 'BARBARA', 'JONES', 'BARBARA.JONES@sakilacustomer.org', 8, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (18, 2, 'CAROL', 'GARCIA', 'CAROL.GARCIA@sakilacustomer.org', 22, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (2, 1, 'PATRICIA', 'JOHNSON', 'PATRICIA.JOHNSON@sakilacustomer.org', 6, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (8, 2, 'SUSAN', 'WILSON', 'SUSAN.WILSON@sakilacustomer.org', 12, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (14, 2, 'BETTY', 'WHITE', 'BETTY.WHITE@sakilacustomer.org', 18, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (3, 1, 'LINDA', 'WILLIAMS', 'LINDA.WILLIAMS@sakilacustomer.org', 7, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date, last_update) VALUES (20, 2, 'SHARON', 'ROBINSON', 'SHARON.ROBINSON@sakilacustomer.org', 24, 'Y', '2006-02-14', '2006-02-15 04:57:20');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (81, 17, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (61, 12, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (45, 9, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (5, 1, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (1, 1, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (98, 19, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (49, 10, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (11, 2, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (78, 16, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (64, 12, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (41, 9, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (29, 6, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (89, 18, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (52, 10, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (55, 11, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (13, 3, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (21, 4, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (43, 9, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (38, 8, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (86, 17, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (91, 18, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (90, 18, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (16, 4, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (59, 11, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (12, 3, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (73, 15, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (40, 8, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (97, 19, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (15, 3, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (44, 9, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (6, 1, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (51, 10, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (7, 1, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (96, 19, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (42, 9, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (50, 10, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (32, 7, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (48, 10, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (47, 10, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (9, 2, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (77, 16, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (94, 19, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (65, 12, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (101, 20, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (83, 17, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (71, 15, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (60, 12, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (92, 18, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (17, 4, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (10, 2, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (72, 15, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (19, 4, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (36, 7, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (58, 11, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (70, 13, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (34, 7, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (53, 11, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (54, 11, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (23, 5, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (69, 13, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (87, 18, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (4, 1, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (18, 4, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (66, 12, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (30, 6, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (68, 13, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (57, 11, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (88, 18, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (100, 20, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (37, 8, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (99, 20, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (75, 15, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (84, 17, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (63, 12, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (67, 13, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (27, 6, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (79, 16, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (2, 1, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (8, 1, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (46, 10, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (80, 16, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (14, 3, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (35, 7, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (56, 11, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (93, 19, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (22, 4, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (24, 5, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (26, 6, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (82, 17, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (39, 8, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (62, 12, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (28, 6, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (74, 15, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (33, 7, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (31, 6, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (76, 15, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (85, 17, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (95, 19, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (3, 1, 1, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (25, 5, 2, '2006-02-15 05:09:17');
INSERT INTO inventory (inventory_id, film_id, store_id, last_update) VALUES (20, 4, 2, '2006-02-15 05:09:17');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (7738, '2005-07-28 05:21:42', 80, 10, '2005-08-03 09:46:42', 2, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (11727, '2005-08-17 08:12:20', 98, 6, '2005-08-19 12:45:20', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (11069, '2005-08-02 07:09:34', 57, 4, '2005-08-08 08:39:34', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (7652, '2005-07-28 01:50:29', 92, 5, '2005-07-30 22:23:29', 2, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (12730, '2005-08-18 21:55:01', 75, 7, '2005-08-22 01:23:01', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (8263, '2005-07-29 01:11:23', 28, 5, '2005-07-31 01:53:23', 2, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (10526, '2005-08-01 11:55:33', 27, 14, '2005-08-08 16:42:33', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (1735, '2005-06-16 15:51:52', 97, 4, '2005-06-20 13:27:52', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (4042, '2005-07-07 03:06:40', 50, 10, '2005-07-10 02:37:40', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (15370, '2005-08-22 21:59:29', 67, 10, '2005-08-27 16:32:29', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (10437, '2005-08-01 08:51:04', 14, 1, '2005-08-10 12:12:04', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (10141, '2005-07-31 22:08:29', 8, 8, '2005-08-06 16:59:29', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (1783, '2005-06-16 19:23:23', 50, 18, '2005-06-18 00:57:23', 1, '2006-02-15 21:30:53');
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update) VALUES (15232, '2005-08-22 17:37:02', 61, 5, '2005-08-25 18:45:02', 1, '2006-02-15 21:30:53');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (144, 5, 2, 15232, 0.99, '2005-08-22 17:37:02', '2005-08-22 17:37:02');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (126, 5, 2, 7652, 0.99, '2005-07-28 01:50:29', '2005-07-28 01:50:29');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (89, 4, 2, 1735, 0.99, '2005-06-16 15:51:52', '2005-06-16 15:51:52');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (472, 18, 2, 1783, 4.99, '2005-06-16 19:23:23', '2005-06-16 19:23:23');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (97, 4, 2, 11069, 0.99, '2005-08-02 07:09:34', '2005-08-02 07:09:34');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (202, 7, 1, 12730, 2.99, '2005-08-18 21:55:01', '2005-08-18 21:55:01');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (128, 5, 1, 8263, 2.99, '2005-07-29 01:11:23', '2005-07-29 01:11:23');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (278, 10, 1, 15370, 5.99, '2005-08-22 21:59:29', '2005-08-22 21:59:29');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (267, 10, 1, 7738, 2.99, '2005-07-28 05:21:42', '2005-07-28 05:21:42');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (261, 10, 2, 4042, 4.99, '2005-07-07 03:06:40', '2005-07-07 03:06:40');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (22, 1, 2, 10437, 4.99, '2005-08-01 08:51:04', '2005-08-01 08:51:04');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (377, 14, 2, 10526, 6.99, '2005-08-01 11:55:33', '2005-08-01 11:55:33');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (222, 8, 2, 10141, 0.99, '2005-07-31 22:08:29', '2005-07-31 22:08:29');
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date, last_update) VALUES (166, 6, 1, 11727, 0.99, '2005-08-17 08:12:20', '2005-08-17 08:12:20');
