#!/usr/bin/env node
// Reads one Iceberg table with icebird (through fetch_shim.mjs: file:// URLs, or s3:// ones
// from LD_ICEBERG_S3_ENDPOINT) and prints {"rows": N, "sha256": "..."} over its rows, so
// that two copies of a table (a local and an S3 dump) can be compared.
//   usage: node iceberg_read.mjs TABLE_URL
import crypto from 'node:crypto';
import { icebergRead } from 'icebird';
import { installFileFetch } from './fetch_shim.mjs';

const url = process.argv[2];
if (!url) { console.error('usage: node iceberg_read.mjs TABLE_URL'); process.exit(2); }
installFileFetch();
const rows = await icebergRead({ tableUrl: url });
const text = JSON.stringify(rows, (k, v) => {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return v;
});
console.log(JSON.stringify({ rows: rows.length, sha256: crypto.createHash('sha256').update(text).digest('hex') }));
