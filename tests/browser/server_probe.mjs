// Probes of a strata HTTP server's refusals (issue 36: DNS rebinding): raw
// requests on 127.0.0.1 whose Host header and path a browser page of another
// site could send. Used by servers.test.mjs (tools/run's server, tools/serve.py,
// strata.serve()) and pypkg.test.mjs (the installed wheel's server).
import assert from 'node:assert/strict';
import http from 'node:http';

/** One GET (or method) to 127.0.0.1:port with the Host header given (null: none
 *  sent). Resolves {status, body: Buffer, headers}. */
export function rawGet(port, urlPath, { host = `127.0.0.1:${port}`, method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const opts = { host: '127.0.0.1', port, path: urlPath, method, headers: { ...headers }, setHost: false, agent: false };
    if (host !== null) opts.headers.Host = host;
    const req = http.request(opts, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(parts), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The paths a request might use to reach prefix + token + '/' + rest without
 *  this run's token: none, a wrong one, a cut one, and five encodings of ../. */
export function pathsWithoutToken(prefix, token, rest) {
  return [
    `${prefix}${rest}`,
    `${prefix}${'A'.repeat(token.length)}/${rest}`,
    `${prefix}${token.slice(0, -1)}/${rest}`,
    `${prefix}x/../${rest}`,
    `${prefix}x/%2e%2e/${rest}`,
    `${prefix}x/..%2f${rest}`,
    `${prefix}x/%2E%2E%2F${rest}`,
    `${prefix}x/..%5c${rest}`,
    `/..%2f${prefix.replaceAll('/', '%2f')}${rest}`,
  ];
}

/** Checks a server on `port` serving the page, and (when tracePath is given)
 *  the trace `traceBytes` at tracePath (/trace/<token>/name, /data/<token>/name:
 *  `token` is this run's): the right hosts
 *  get both; foreign hosts, a missing Host, a wrong port, a missing or wrong
 *  token and traversal get 403 or 404 and no byte of the trace. `stderr()`
 *  returns what the server printed so far: each 403 names the host there. */
export async function checkServerRefusals(port, { tracePath = null, token = null, traceBytes = null, stderr = null } = {}) {
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
    const page = await rawGet(port, '/', { host });
    assert.equal(page.status, 200, `the page for Host ${host}`);
    assert.match(page.body.toString(), /strata/);
    if (tracePath) {
      const tr = await rawGet(port, tracePath, { host });
      assert.equal(tr.status, 200, `${tracePath} for Host ${host}`);
      assert.ok(tr.body.equals(traceBytes), 'the trace, byte for byte');
      const part = await rawGet(port, tracePath, { host, headers: { Range: 'bytes=0-9' } });
      assert.equal(part.status, 206);
      assert.ok(part.body.equals(traceBytes.subarray(0, 10)));
    }
  }
  const marker = traceBytes ? traceBytes.subarray(0, Math.min(16, traceBytes.length)) : null;
  const foreign = [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, `127.0.0.1:${port + 1}`,
    `localhost:${port}.evil.example`, `127.0.0.1`, ''];
  const targets = ['/', '/index.html', ...(tracePath ? [tracePath] : [])];
  for (const host of foreign) {
    for (const p of targets) {
      for (const method of ['GET', 'HEAD']) {
        const r = await rawGet(port, p, { host, method, headers: { Range: 'bytes=0-99' } });
        assert.equal(r.status, 403, `${method} ${p} with Host '${host}' must be refused`);
        if (method === 'GET') {
          const text = r.body.toString();
          assert.equal(text.trim().split('\n').length, 1, 'a one-line reason');
          assert.match(text, /^strata: refused: Host .* is not this server/);
        }
        if (marker) assert.equal(r.body.indexOf(marker), -1, 'no byte of the trace');
      }
    }
  }
  const none = await rawGet(port, tracePath || '/', { host: null });
  assert.equal(none.status, 403, 'no Host header');
  if (tracePath) {
    const at = tracePath.indexOf(`/${token}/`);
    assert.ok(token && at >= 0, `${tracePath} carries the token`);
    const prefix = tracePath.slice(0, at + 1);
    const rest = tracePath.slice(at + token.length + 2);
    for (const p of pathsWithoutToken(prefix, token, rest)) {
      const r = await rawGet(port, p);
      assert.ok(r.status === 403 || r.status === 404, `${p}: ${r.status}`);
      assert.equal(r.body.indexOf(marker), -1, `${p}: no byte of the trace`);
    }
  }
  if (stderr) {
    const err = stderr();
    assert.match(err, new RegExp(`strata: refused: Host evil\\.example:${port} is not this server .*: GET '/'`));
    assert.match(err, /strata: refused: Host \(none\) is not this server/);
  }
}
