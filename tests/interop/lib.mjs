// Shared code of the interop oracle: three independent Parquet readers (DuckDB, hyparquet,
// parquet-wasm) whose output is normalised to one canonical JSON form, so that a file written by
// lakedump can be compared exactly against an expected.json.
//
// Canonical types: bool int8 int16 int32 int64 float double decimal(P,S) string binary date time
// timestamp timestamptz uuid json (+ uint8 uint16 uint32 uint64 int128 timetz, and "other" for
// nested/unknown columns, which read.mjs prints but check.mjs cannot compare across readers).
// See README.md for the value forms.

import fs from 'node:fs';

// ---------------------------------------------------------------------------------------------
// Canonical value formatting

const INT_TYPES = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'int128']);
const MICROS_PER_DAY = 86400000000n;
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function parseDecimalType(t) {
  const m = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  return m ? { p: Number(m[1]), s: Number(m[2]) } : null;
}

// "list<int32>" -> "int32"; null for a type that is not a list.
export function listElementType(t) {
  const m = /^list<(.+)>$/.exec(t);
  return m ? m[1] : null;
}

export function isKnownType(t) {
  const element = listElementType(t);
  if (element !== null) return isKnownType(element);
  return INT_TYPES.has(t) || parseDecimalType(t) !== null ||
    ['bool', 'float', 'double', 'string', 'binary', 'date', 'time', 'timetz', 'timestamp',
      'timestamptz', 'uuid', 'json', 'other'].includes(t);
}

function floorDiv(a, b) { // bigint
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function pad(n, w) {
  const s = String(n);
  return s.length >= w ? s : '0'.repeat(w - s.length) + s;
}

// Proleptic Gregorian civil date from days since 1970-01-01 (H. Hinnant's algorithm). No JS Date:
// exact for any day count, no time zone involved.
export function formatDays(days) {
  days = Number(days);
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  let y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) y += 1;
  const ys = y < 0 ? '-' + pad(-y, 4) : pad(y, 4);
  return `${ys}-${pad(m, 2)}-${pad(d, 2)}`;
}

function formatTimeOfDayMicros(us) { // bigint in [0, 86400e6]
  const frac = us % 1000000n;
  let s = us / 1000000n;
  const hh = s / 3600n; s %= 3600n;
  const mm = s / 60n; s %= 60n;
  return `${pad(hh, 2)}:${pad(mm, 2)}:${pad(s, 2)}.${pad(frac, 6)}`;
}

export function formatTimestampMicros(us) { // bigint micros since epoch
  const days = floorDiv(us, MICROS_PER_DAY);
  const rem = us - days * MICROS_PER_DAY;
  return `${formatDays(days)}T${formatTimeOfDayMicros(rem)}`;
}

export function formatDecimal(unscaled, scale) { // bigint, number
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
    digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
  }
  return (neg ? '-' : '') + digits;
}

// Parse a decimal string/number into an unscaled bigint at the given scale (exact; throws when the
// value has more significant fractional digits than the scale allows).
export function parseDecimalString(v, scale) {
  const str = typeof v === 'number' ? numberToPlainString(v) : String(v).trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(str);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not a decimal: ${JSON.stringify(v)}`);
  let intPart = m[2] || '0';
  let frac = m[3] ?? '';
  let exp = m[4] ? Number(m[4]) : 0;
  // apply exponent by moving the point
  let all = intPart + frac;
  let pointPos = intPart.length + exp;
  if (pointPos < 0) { all = '0'.repeat(-pointPos) + all; pointPos = 0; }
  if (pointPos > all.length) { all = all + '0'.repeat(pointPos - all.length); }
  intPart = all.slice(0, pointPos) || '0';
  frac = all.slice(pointPos);
  if (frac.length > scale) {
    if (/[^0]/.test(frac.slice(scale))) throw new Error(`decimal ${str} has more than ${scale} fractional digits`);
    frac = frac.slice(0, scale);
  }
  frac = frac + '0'.repeat(scale - frac.length);
  const u = BigInt(intPart + frac);
  return m[1] === '-' ? -u : u;
}

function numberToPlainString(x) {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  return String(x); // may contain an exponent; parseDecimalString handles it
}

// Shortest decimal string that reads back as the same float32.
export function float32Shortest(x) {
  const f = Math.fround(x);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return Number(s);
  }
  return f;
}

function canonFloating(x, is32) {
  if (typeof x === 'string') {
    if (x === 'NaN' || x === 'Infinity' || x === '-Infinity' || x === '-0') return x;
    if (x === 'inf' || x === '+inf' || x === '+Infinity') return 'Infinity';
    if (x === '-inf') return '-Infinity';
    if (x === 'nan') return 'NaN';
    const n = Number(x);
    if (x.trim() === '' || Number.isNaN(n)) throw new Error(`not a number: ${JSON.stringify(x)}`);
    x = n;
  }
  if (typeof x === 'bigint') x = Number(x);
  if (typeof x !== 'number') throw new Error(`not a number: ${describe(x)}`);
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (is32) {
    const f = Math.fround(x);
    if (f === Infinity) return 'Infinity';
    if (f === -Infinity) return '-Infinity';
    if (Object.is(f, -0)) return '-0';
    return float32Shortest(f);
  }
  if (Object.is(x, -0)) return '-0';
  return x;
}

function bytesToHex(b) {
  let s = '';
  for (let i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16);
  return s;
}

function asBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (Array.isArray(v) && v.every(x => Number.isInteger(x) && x >= 0 && x < 256)) return Uint8Array.from(v);
  return null;
}

function formatUuidHex(hex) {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function describe(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `bytes[${v.length}]`;
  try { return JSON.stringify(v, jsonReplacer) ?? String(v); } catch { return String(v); }
}

function jsonReplacer(_k, v) {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

// Tagged intermediate values produced by the reader adapters.
export class Micros { constructor(us) { this.us = us; } }          // time/timestamp, bigint micros
export class Days { constructor(d) { this.days = d; } }            // date
export class Unscaled { constructor(u, s) { this.u = u; this.s = s; } } // decimal

// Normalise one value to the canonical form of `type`. Accepts the readers' intermediate values
// and the (more lenient) forms allowed in expected.json.
export function canon(type, v) {
  if (v === null || v === undefined) return null;
  const element = listElementType(type);
  if (element !== null) {
    if (typeof v === 'string' || typeof v[Symbol.iterator] !== 'function') throw new Error(`not a list: ${describe(v)}`);
    return Array.from(v, x => canon(element, x));
  }
  if (INT_TYPES.has(type)) {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new Error(`integer out of safe range as JS number: ${v}`);
      return BigInt(v).toString();
    }
    if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return BigInt(v.trim()).toString();
    throw new Error(`not an integer: ${describe(v)}`);
  }
  const dec = parseDecimalType(type);
  if (dec) {
    if (v instanceof Unscaled) return formatDecimal(v.u, v.s);
    if (typeof v === 'bigint') return formatDecimal(v * 10n ** BigInt(dec.s), dec.s);
    return formatDecimal(parseDecimalString(v, dec.s), dec.s);
  }
  switch (type) {
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 1 || v === 1n) return true;
      if (v === 'false' || v === 0 || v === 0n) return false;
      throw new Error(`not a bool: ${describe(v)}`);
    case 'float': return canonFloating(v, true);
    case 'double': return canonFloating(v, false);
    case 'string':
    case 'json': {
      if (typeof v === 'string') return v;
      const b = asBytes(v);
      if (b) return utf8Decoder.decode(b);
      if (type === 'json') return JSON.stringify(v);
      throw new Error(`not a string: ${describe(v)}`);
    }
    case 'binary': {
      const b = asBytes(v);
      if (b) return bytesToHex(b);
      if (typeof v === 'string' && /^([0-9a-fA-F]{2})*$/.test(v)) return v.toLowerCase();
      throw new Error(`not binary: ${describe(v)}`);
    }
    case 'uuid': {
      const b = asBytes(v);
      if (b && b.length === 16) return formatUuidHex(bytesToHex(b));
      if (typeof v === 'string') {
        const h = v.replace(/[-{}]/g, '').toLowerCase();
        if (/^[0-9a-f]{32}$/.test(h)) return formatUuidHex(h);
      }
      throw new Error(`not a uuid: ${describe(v)}`);
    }
    case 'date':
      if (v instanceof Days) return formatDays(v.days);
      if (typeof v === 'string' && /^-?\d{4,}-\d\d-\d\d$/.test(v)) return v;
      throw new Error(`not a date: ${describe(v)}`);
    case 'time':
    case 'timetz':
      if (v instanceof Micros) return formatTimeOfDayMicros(v.us);
      if (typeof v === 'string') {
        const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(Z|[+-]00(?::?00)?)?$/.exec(v);
        if (m) return `${m[1]}:${m[2]}:${m[3]}.${(m[4] ?? '').padEnd(6, '0')}`;
      }
      throw new Error(`not a time: ${describe(v)}`);
    case 'timestamp':
    case 'timestamptz': {
      const z = type === 'timestamptz' ? 'Z' : '';
      if (v instanceof Micros) return formatTimestampMicros(v.us) + z;
      if (typeof v === 'string') {
        const m = /^(-?\d{4,}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]00(?::?00)?)?$/.exec(v);
        if (m && (type === 'timestamptz' || !m[4])) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}${z}`;
      }
      throw new Error(`not a ${type}: ${describe(v)}`);
    }
    case 'other':
      return typeof v === 'string' ? v : JSON.stringify(v, jsonReplacer);
    default:
      throw new Error(`unknown canonical type ${type}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Type compatibility: what each reader can tell apart.

// Returns true when a reader that inferred `got` is consistent with expected type `want`.
export function typeCompatible(reader, got, want) {
  if (got === want) return true;
  const gotElement = listElementType(got), wantElement = listElementType(want);
  if (gotElement !== null || wantElement !== null) {
    return gotElement !== null && wantElement !== null && typeCompatible(reader, gotElement, wantElement);
  }
  if (reader === 'parquet-wasm') {
    // arrow-rs drops the JSON and (here) UUID annotations, and Arrow time types carry no zone.
    if (want === 'json' && got === 'string') return true;
    if (want === 'uuid' && got === 'fixed_binary(16)') return true;
    if ((want === 'time' || want === 'timetz') && (got === 'time' || got === 'timetz')) return true;
  }
  if (got === 'fixed_binary(16)' && want === 'binary') return true;
  if (/^fixed_binary\(\d+\)$/.test(got) && want === 'binary') return true;
  return false;
}

function canonTypeForReading(t) {
  const element = listElementType(t);
  if (element !== null) return `list<${canonTypeForReading(element)}>`;
  return /^fixed_binary\(\d+\)$/.test(t) ? 'binary' : t;
}

// ---------------------------------------------------------------------------------------------
// DuckDB

let duckdbModule = null;

export class DuckReader {
  static async create() {
    duckdbModule ??= await import('@duckdb/node-api');
    const inst = await duckdbModule.DuckDBInstance.create(':memory:', { threads: '2' });
    const conn = await inst.connect();
    await conn.run("SET TimeZone='UTC'");
    return new DuckReader(inst, conn);
  }
  constructor(inst, conn) { this.inst = inst; this.conn = conn; this.name = 'duckdb'; }

  static lit(s) { return `'${String(s).replace(/'/g, "''")}'`; }
  static ident(s) { return `"${String(s).replace(/"/g, '""')}"`; }

  async query(sql) {
    const r = await this.conn.runAndReadAll(sql);
    return { names: r.columnNames(), rows: r.getRows() };
  }

  // [{name, duckType, type}] for the top-level columns
  async schema(file) {
    const r = await this.query(`DESCRIBE SELECT * FROM read_parquet(${DuckReader.lit(file)})`);
    return r.rows.map(row => ({ name: row[0], duckType: row[1], type: duckTypeToCanon(row[1]) }));
  }

  // Returns {columns, types, rows} with canonical values; `types` (optional) overrides the
  // canonical type used to normalise each column.
  async read(file, wantTypes) {
    const schema = await this.schema(file);
    const sel = schema.map(c => {
      const id = DuckReader.ident(c.name);
      if (c.type === 'uuid') return `CAST(${id} AS VARCHAR)`;
      if (c.type === 'list<uuid>') return `CAST(${id} AS VARCHAR[])`;
      if (c.type === 'other') return `CAST(to_json(${id}) AS VARCHAR)`;
      return id;
    });
    const r = await this.query(`SELECT ${sel.join(', ') || '*'} FROM read_parquet(${DuckReader.lit(file)})`);
    const types = schema.map((c, j) => (wantTypes && wantTypes[j]) ? wantTypes[j] : canonTypeForReading(c.type));
    const rows = r.rows.map(row => row.map((v, j) => canon(types[j], duckValue(v))));
    return { columns: schema.map(c => c.name), types: schema.map(c => c.type), rows };
  }

  close() {
    try { this.conn.closeSync?.(); } catch { /* ignore */ }
    try { this.inst.closeSync?.(); } catch { /* ignore */ }
  }
}

export function duckTypeToCanon(t) {
  const list = /^(.*)\[\]$/.exec(t);
  if (list) {
    const element = duckTypeToCanon(list[1]);
    return element === 'other' || listElementType(element) !== null ? 'other' : `list<${element}>`;
  }
  const map = {
    BOOLEAN: 'bool', TINYINT: 'int8', SMALLINT: 'int16', INTEGER: 'int32', BIGINT: 'int64',
    HUGEINT: 'int128', UTINYINT: 'uint8', USMALLINT: 'uint16', UINTEGER: 'uint32', UBIGINT: 'uint64',
    FLOAT: 'float', DOUBLE: 'double', VARCHAR: 'string', BLOB: 'binary', DATE: 'date',
    TIME: 'time', TIME_NS: 'time', 'TIME WITH TIME ZONE': 'timetz',
    TIMESTAMP: 'timestamp', TIMESTAMP_NS: 'timestamp', TIMESTAMP_MS: 'timestamp', TIMESTAMP_S: 'timestamp',
    'TIMESTAMP WITH TIME ZONE': 'timestamptz', UUID: 'uuid', JSON: 'json',
  };
  if (map[t]) return map[t];
  const m = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (m) return `decimal(${m[1]},${m[2]})`;
  return 'other';
}

function duckValue(v) {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return v;
  const cls = v.constructor?.name ?? '';
  switch (cls) {
    case 'DuckDBDecimalValue': return new Unscaled(v.value, v.scale);
    case 'DuckDBBlobValue': return v.bytes;
    case 'DuckDBDateValue': return new Days(v.days);
    case 'DuckDBTimeValue': return new Micros(v.micros);
    case 'DuckDBTimeNSValue': return new Micros(floorDiv(v.nanos, 1000n));
    case 'DuckDBTimeTZValue': return new Micros(v.micros); // offset is 0 for Parquet (UTC)
    case 'DuckDBTimestampValue':
    case 'DuckDBTimestampTZValue': return new Micros(v.micros);
    case 'DuckDBTimestampNanosecondsValue': return new Micros(floorDiv(v.nanos, 1000n));
    case 'DuckDBTimestampMillisecondsValue': return new Micros(v.millis * 1000n);
    case 'DuckDBTimestampSecondsValue': return new Micros(v.seconds * 1000000n);
    case 'DuckDBListValue': return v.items.map(duckValue);
    default: return String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// hyparquet: pure JS. We bypass its lossy conversions (decimals to JS numbers, timestamps to
// millisecond Dates) by dropping the DECIMAL annotation from a copy of the metadata and by giving
// it pass-through parsers, then convert the raw physical values ourselves.

let hyp = null;

async function loadHyparquet() {
  if (!hyp) {
    const h = await import('hyparquet');
    const c = await import('hyparquet-compressors');
    hyp = { ...h, compressors: c.compressors };
  }
  return hyp;
}

const RAW_PARSERS = {
  timestampFromMilliseconds: v => new Micros(BigInt(v) * 1000n),
  timestampFromMicroseconds: v => new Micros(BigInt(v)),
  timestampFromNanoseconds: v => new Micros(floorDiv(BigInt(v), 1000n)),
  dateFromDays: v => new Days(Number(v)),
  stringFromBytes: b => b,
  jsonFromBytes: b => b,
  uuidFromBytes: b => b,
  geometryFromBytes: b => b,
  geographyFromBytes: b => b,
};

export function hyparquetElementType(e) {
  const lt = e.logical_type;
  const ct = e.converted_type;
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL') return `decimal(${lt?.precision ?? e.precision},${lt?.scale ?? e.scale ?? 0})`;
  if (lt?.type === 'INTEGER') return `${lt.isSigned ? 'int' : 'uint'}${lt.bitWidth}`;
  const ctMap = { INT_8: 'int8', INT_16: 'int16', INT_32: 'int32', INT_64: 'int64', UINT_8: 'uint8', UINT_16: 'uint16', UINT_32: 'uint32', UINT_64: 'uint64', UTF8: 'string', JSON: 'json', DATE: 'date' };
  if (lt?.type === 'STRING' || lt?.type === 'ENUM') return 'string';
  if (lt?.type === 'JSON') return 'json';
  if (lt?.type === 'UUID') return 'uuid';
  if (lt?.type === 'DATE') return 'date';
  if (lt?.type === 'TIME') return lt.isAdjustedToUTC ? 'timetz' : 'time';
  if (lt?.type === 'TIMESTAMP') return lt.isAdjustedToUTC ? 'timestamptz' : 'timestamp';
  if (lt?.type === 'FLOAT16') return 'float';
  if (ct && ctMap[ct]) return ctMap[ct];
  if (ct === 'TIME_MILLIS' || ct === 'TIME_MICROS') return 'timetz'; // legacy: adjusted to UTC
  if (ct === 'TIMESTAMP_MILLIS' || ct === 'TIMESTAMP_MICROS') return 'timestamptz';
  if (ct || lt) return 'other';
  switch (e.type) {
    case 'BOOLEAN': return 'bool';
    case 'INT32': return 'int32';
    case 'INT64': return 'int64';
    case 'INT96': return 'timestamp';
    case 'FLOAT': return 'float';
    case 'DOUBLE': return 'double';
    case 'BYTE_ARRAY': return 'binary';
    case 'FIXED_LEN_BYTE_ARRAY': return `fixed_binary(${e.type_length})`;
    default: return 'other';
  }
}

function hyparquetTimeToMicros(e, v) {
  if (v === null || v === undefined) return v;
  const unit = e.logical_type?.type === 'TIME' ? e.logical_type.unit
    : (e.converted_type === 'TIME_MILLIS' ? 'MILLIS' : 'MICROS');
  const b = BigInt(v);
  if (unit === 'MILLIS') return new Micros(b * 1000n);
  if (unit === 'NANOS') return new Micros(floorDiv(b, 1000n));
  return new Micros(b);
}

function unscaledFromBytes(bytes) { // big-endian two's complement
  if (!bytes.length) return 0n;
  let v = 0n;
  for (const byte of bytes) v = (v << 8n) | BigInt(byte);
  if (bytes[0] & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

export class HyparquetReader {
  constructor() { this.name = 'hyparquet'; }
  async read(file, wantTypes) {
    const h = await loadHyparquet();
    const buf = fs.readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const md = h.parquetMetadata(ab);
    const tree = h.parquetSchema(md);
    const top = tree.children;
    const colInfo = top.map(c => {
      const e = c.element;
      const leaf = !c.children || c.children.length === 0;
      if (leaf) {
        // An unannotated repeated primitive is a list of required elements.
        if (e.repetition_type === 'REPEATED') return { name: e.name, element: e, type: `list<${hyparquetElementType(e)}>` };
        return { name: e.name, element: e, type: hyparquetElementType(e) };
      }
      // The spec's 3-level LIST: <name> (LIST) { repeated group list { <element> } }, or the
      // legacy 2-level form <name> (LIST) { repeated <primitive> element }
      const isList = e.converted_type === 'LIST' || e.logical_type?.type === 'LIST';
      const inner = c.children.length === 1 ? c.children[0] : null;
      const innerLeaf = inner && (!inner.children || inner.children.length === 0);
      const item = innerLeaf ? inner : (inner?.children?.length === 1 ? inner.children[0] : null);
      if (isList && item && (!item.children || item.children.length === 0)) {
        return { name: e.name, element: item.element, type: `list<${hyparquetElementType(item.element)}>` };
      }
      return { name: e.name, element: e, type: 'other' };
    });
    // copy of the metadata without DECIMAL annotations so that we get raw unscaled values
    const decimalLeaves = new Set(colInfo.filter(c => (listElementType(c.type) ?? c.type).startsWith('decimal(')).map(c => c.element));
    const schema = md.schema.map(e => {
      if (!decimalLeaves.has(e) || !(e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL')) return e;
      const copy = { ...e };
      delete copy.converted_type;
      delete copy.logical_type;
      return copy;
    });
    const metadata = { ...md, schema };
    let rows = [];
    await h.parquetRead({
      file: ab, metadata, compressors: h.compressors, parsers: RAW_PARSERS, utf8: true,
      rowFormat: 'array', onComplete: r => { rows = r; },
    });
    const types = colInfo.map((c, j) => (wantTypes && wantTypes[j]) ? wantTypes[j] : canonTypeForReading(c.type));
    const convert = (c, t, v) => {
      if (v === null || v === undefined) return null;
      if (t.startsWith('decimal(')) {
        const scale = Number(c.element.logical_type?.scale ?? c.element.scale ?? 0);
        const u = (v instanceof Uint8Array) ? unscaledFromBytes(v) : BigInt(v);
        v = new Unscaled(u, scale);
      } else if (t === 'time' || t === 'timetz') {
        v = hyparquetTimeToMicros(c.element, v);
      } else if (t === 'date' && typeof v === 'number') {
        v = new Days(v); // DATE logical type without the DATE converted type: hyparquet gives raw days
      } else if ((t === 'timestamp' || t === 'timestamptz') && typeof v === 'bigint') {
        const unit = c.element.logical_type?.unit ?? (c.element.converted_type === 'TIMESTAMP_MILLIS' ? 'MILLIS' : 'MICROS');
        v = new Micros(unit === 'MILLIS' ? v * 1000n : unit === 'NANOS' ? floorDiv(v, 1000n) : v);
      } else if (t === 'other') {
        v = JSON.stringify(v, jsonReplacer);
      }
      return v;
    };
    const out = rows.map(row => colInfo.map((c, j) => {
      const v = row[j];
      if (v === null || v === undefined) return null;
      const element = listElementType(c.type);
      if (element !== null && Array.isArray(v)) return canon(types[j], v.map(x => convert(c, element, x)));
      return canon(types[j], convert(c, c.type, v));
    }));
    return { columns: colInfo.map(c => c.name), types: colInfo.map(c => c.type), rows: out };
  }
}

// ---------------------------------------------------------------------------------------------
// parquet-wasm (Rust arrow-rs compiled to WebAssembly), output decoded with apache-arrow.

let pw = null;

async function loadParquetWasm() {
  if (!pw) {
    const wasm = await import('parquet-wasm'); // resolves to the node build under node
    const arrow = await import('apache-arrow');
    pw = { wasm, arrow };
  }
  return pw;
}

function arrowType(arrow, t) {
  const T = arrow.Type;
  switch (t.typeId) {
    case T.Bool: return 'bool';
    case T.Int: return `${t.isSigned ? 'int' : 'uint'}${t.bitWidth}`;
    case T.Float: return t.precision === arrow.Precision.DOUBLE ? 'double' : 'float';
    case T.Decimal: return `decimal(${t.precision},${t.scale})`;
    case T.Utf8: case T.LargeUtf8: case T.Utf8View: return 'string';
    case T.Binary: case T.LargeBinary: case T.BinaryView: return 'binary';
    case T.FixedSizeBinary: return `fixed_binary(${t.byteWidth})`;
    case T.Date: return 'date';
    case T.Time: return 'time';
    case T.Timestamp: return t.timezone ? 'timestamptz' : 'timestamp';
    case T.List: {
      const element = arrowType(arrow, t.children[0].type);
      return element === 'other' || listElementType(element) !== null ? 'other' : `list<${element}>`;
    }
    default: return 'other';
  }
}

function arrowUnitToMicros(arrow, unit, raw) {
  const b = BigInt(raw);
  switch (unit) {
    case arrow.TimeUnit.SECOND: return b * 1000000n;
    case arrow.TimeUnit.MILLISECOND: return b * 1000n;
    case arrow.TimeUnit.MICROSECOND: return b;
    case arrow.TimeUnit.NANOSECOND: return floorDiv(b, 1000n);
    default: throw new Error(`unknown arrow time unit ${unit}`);
  }
}

function decimalWordsToBigInt(words) { // little-endian uint32 words, two's complement
  let v = 0n;
  for (let k = words.length - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[k] >>> 0);
  const bits = BigInt(words.length * 32);
  if (words[words.length - 1] & 0x80000000) v -= 1n << bits;
  return v;
}

export class ParquetWasmReader {
  constructor() { this.name = 'parquet-wasm'; }
  async read(file, wantTypes) {
    const { wasm, arrow } = await loadParquetWasm();
    const bytes = new Uint8Array(fs.readFileSync(file));
    const wt = wasm.readParquet(bytes);
    const table = arrow.tableFromIPC(wt.intoIPCStream());
    const fields = table.schema.fields;
    const ctypes = fields.map(f => arrowType(arrow, f.type));
    const types = fields.map((f, j) => (wantTypes && wantTypes[j]) ? wantTypes[j] : canonTypeForReading(ctypes[j]));
    const n = table.numRows;
    const rows = Array.from({ length: n }, () => new Array(fields.length));
    fields.forEach((f, j) => {
      const values = arrowValues(arrow, table.getChildAt(j), f.type);
      for (let r = 0; r < n; r++) rows[r][j] = canon(types[j], values[r]);
    });
    // intoIPCStream() consumed (freed) the wasm table
    return { columns: fields.map(f => f.name), types: ctypes, rows };
  }
}

// The values of an Arrow vector of type t as canon() takes them (null for nulls); a list's
// values are arrays of its elements' values.
function arrowValues(arrow, vec, t) {
  const T = arrow.Type;
  const out = [];
  let r = 0;
  for (const d of vec.data) {
    for (let i = 0; i < d.length; i++, r++) {
      if (!d.getValid(i)) { out.push(null); continue; }
      let v;
      switch (t.typeId) {
        case T.Decimal: {
          const stride = t.bitWidth / 32;
          v = new Unscaled(decimalWordsToBigInt(d.values.subarray(i * stride, (i + 1) * stride)), t.scale);
          break;
        }
        case T.Date:
          v = t.unit === arrow.DateUnit.DAY ? new Days(d.values[i])
            : new Days(Number(floorDiv(BigInt(d.values[i]), 86400000n)));
          break;
        case T.Time:
          v = new Micros(arrowUnitToMicros(arrow, t.unit, d.values[i]));
          break;
        case T.Timestamp:
          v = new Micros(arrowUnitToMicros(arrow, t.unit, d.values[i]));
          break;
        case T.Bool: case T.Int: case T.Float: case T.Utf8: case T.LargeUtf8: case T.Utf8View:
        case T.Binary: case T.LargeBinary: case T.BinaryView: case T.FixedSizeBinary:
          v = vec.get(r);
          break;
        case T.List:
          if (arrowType(arrow, t) !== 'other') {
            v = arrowValues(arrow, vec.get(r), t.children[0].type);
            break;
          }
        // fall through
        default: {
          const x = vec.get(r);
          v = JSON.stringify(x?.toJSON ? x.toJSON() : x, jsonReplacer);
        }
      }
      out.push(v);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

export const READER_NAMES = ['duckdb', 'hyparquet', 'parquet-wasm'];

export async function makeReaders(names = READER_NAMES) {
  const out = [];
  for (const n of names) {
    if (n === 'duckdb') out.push(await DuckReader.create());
    else if (n === 'hyparquet') out.push(new HyparquetReader());
    else if (n === 'parquet-wasm') out.push(new ParquetWasmReader());
    else throw new Error(`unknown reader ${n}`);
  }
  return out;
}

export function truncate(s, n = 200) {
  return s.length > n ? s.slice(0, n) + `...(${s.length} chars)` : s;
}
