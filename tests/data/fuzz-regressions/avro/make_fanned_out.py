#!/usr/bin/env python3
# usage: make_fanned_out.py OUT LEVELS FAN RECORDS
# A manifest list whose schema fans out: LEVELS levels of named records, each with FAN fields of the
# next level's type (defined once, then referenced by name), the last level of nulls: a record
# takes zero bytes and FAN^LEVELS values to skip (12 4: 16.7M; 30 2: 1G).
import json, sys
def zz(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80); n >>= 7
    out.append(n); return bytes(out)
def bts(b): return zz(len(b)) + b
levels, fan = int(sys.argv[2]), int(sys.argv[3])
t = "null"
for lvl in reversed(range(levels)):
    name = f"t{lvl}"
    fields = [{"name": "f0", "type": t}] + [{"name": f"f{i}", "type": (t["name"] if isinstance(t, dict) else t)} for i in range(1, fan)]
    t = {"type": "record", "name": name, "fields": fields}
schema = json.dumps(t, separators=(",", ":")).encode()
sync = b"0123456789abcdef"
out = b"Obj\x01" + zz(2) + bts(b"avro.schema") + bts(schema) + bts(b"avro.codec") + bts(b"null") + zz(0) + sync
records = int(sys.argv[4])
out += zz(records) + zz(0) + sync
open(sys.argv[1], "wb").write(out)
print(len(out))
