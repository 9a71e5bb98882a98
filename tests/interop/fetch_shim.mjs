// A `fetch` for readers that only speak HTTP (icebird, hyparquet's asyncBufferFromUrl):
// serves file:// URLs from the local filesystem with HEAD, GET and single Range requests
// (206 + Content-Range), as an object store would. The path after file:// is used as is
// (lakedump writes locations without percent-encoding).
// With LD_ICEBERG_S3_ENDPOINT set, https://BUCKET.s3.amazonaws.com/KEY (what icebird makes of
// s3://BUCKET/KEY) is fetched from that endpoint instead, signed by awscli (/usr/bin/aws, with
// the AWS_* credentials of the environment): head-object / get-object --range.
// Every other URL goes to the real fetch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

function awsS3(args) {
  return execFileSync('/usr/bin/aws', ['--endpoint-url', process.env.LD_ICEBERG_S3_ENDPOINT, 's3api', ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// HEAD / GET (optionally ranged) of an S3 object through awscli.
function s3Response(bucket, key, method, range) {
  let head;
  try { head = JSON.parse(awsS3(['head-object', '--bucket', bucket, '--key', key])); } catch {
    return new Response('not found', { status: 404, statusText: 'Not Found' });
  }
  const size = Number(head.ContentLength);
  if (method === 'HEAD') return new Response(null, { status: 200, headers: { 'content-length': String(size) } });
  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-s3-')), 'body');
  try {
    awsS3(['get-object', '--bucket', bucket, '--key', key, ...(range ? ['--range', range] : []), tmp]);
    const body = fs.readFileSync(tmp);
    if (!range) return new Response(body, { status: 200, headers: { 'content-length': String(body.length) } });
    const start = Number(/^bytes=(\d*)/.exec(range)[1] || size - body.length);
    return new Response(body, {
      status: 206,
      headers: { 'content-length': String(body.length), 'content-range': `bytes ${start}-${start + body.length - 1}/${size}` },
    });
  } finally {
    fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
  }
}

function headerOf(init, name) {
  const h = init?.headers;
  if (!h) return undefined;
  if (typeof h.get === 'function') return h.get(name) ?? undefined;
  const key = Object.keys(h).find(k => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : h[key];
}

export function fileFetch(realFetch = globalThis.fetch) {
  return async function fetch(input, init) {
    const url = typeof input === 'string' ? input : input.url;
    const s3 = /^https:\/\/([^./]+)\.s3\.amazonaws\.com\/(.+)$/.exec(url);
    if (s3 && process.env.LD_ICEBERG_S3_ENDPOINT) {
      return s3Response(s3[1], s3[2], (init?.method ?? 'GET').toUpperCase(), headerOf(init, 'range'));
    }
    if (!url.startsWith('file://')) return realFetch(input, init);
    const path = url.slice('file://'.length);
    let st;
    try { st = fs.statSync(path); } catch { return new Response('not found', { status: 404, statusText: 'Not Found' }); }
    if (!st.isFile()) return new Response('not a file', { status: 404, statusText: 'Not Found' });
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'HEAD') {
      return new Response(null, { status: 200, headers: { 'content-length': String(st.size) } });
    }
    const range = headerOf(init, 'range');
    const m = range && /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (m) {
      let start, end;
      if (m[1] === '') { start = Math.max(0, st.size - Number(m[2])); end = st.size - 1; } // suffix
      else { start = Number(m[1]); end = m[2] === '' ? st.size - 1 : Math.min(Number(m[2]), st.size - 1); }
      if (start > end || start >= st.size) {
        return new Response('', { status: 416, headers: { 'content-range': `bytes */${st.size}` } });
      }
      const buf = Buffer.alloc(end - start + 1);
      const fd = fs.openSync(path, 'r');
      try { fs.readSync(fd, buf, 0, buf.length, start); } finally { fs.closeSync(fd); }
      return new Response(buf, {
        status: 206,
        headers: { 'content-length': String(buf.length), 'content-range': `bytes ${start}-${end}/${st.size}` },
      });
    }
    const body = fs.readFileSync(path);
    return new Response(body, { status: 200, headers: { 'content-length': String(body.length) } });
  };
}

// Installs the shim as globalThis.fetch (what icebird and hyparquet call).
export function installFileFetch() {
  globalThis.fetch = fileFetch(globalThis.fetch.bind(globalThis));
}
