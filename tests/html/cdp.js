/* SPDX-License-Identifier: MIT */
// tests/html/cdp.js - open a page in headless Chromium and drive it over the
// DevTools protocol (CDP), with nothing but Node's own WebSocket and fetch
// (node --experimental-websocket on Node 20).  Used by tests/html.sh and
// `make screenshots`.
//
//   node --experimental-websocket tests/html/cdp.js PAGE.html STEPS.js [ARGS...]
//
// Starts `chromium --headless=new --remote-debugging-port=0` with a fresh
// profile (the port is read from its DevToolsActivePort file), records every
// console error, exception, dialog (alert, confirm...) and network request,
// opens file://PAGE, waits for the page's data-ready mark, then runs
// require(STEPS)(api, ARGS) and prints what it returns, one line each.
// Then it prints "ready_ms N" (navigation to the page drawn), "errors N",
// "requests N" (other than the page itself), "dialogs N", and each of them.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const sleep = ms => new Promise(r => setTimeout(r, ms));
let chromium = null;    // its process, killed with its group when the driver exits
process.on('exit', () => { if (chromium) try { process.kill(-chromium.pid, 'SIGKILL'); } catch (e) { } });

async function launch(width, height) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtrace-chromium-'));
  const bin = process.env.CHROMIUM || 'chromium';
  const args = ['--headless=new', '--remote-debugging-port=0', '--user-data-dir=' + dir,
    '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-gpu',
    '--disable-background-networking', '--disable-sync', '--disable-component-update',
    '--hide-scrollbars', '--window-size=' + width + ',' + height, 'about:blank'];
  if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox');
  // its own process group, so that its helpers (renderer, GPU, zygote) end with it
  const proc = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  chromium = proc;
  let stderr = '';
  proc.stderr.on('data', d => { stderr += d; });
  const portFile = path.join(dir, 'DevToolsActivePort');
  for (let i = 0; i < 600 && !fs.existsSync(portFile); i++) {     // 30 s
    if (proc.exitCode !== null) throw new Error('chromium exited: ' + stderr.slice(0, 400));
    await sleep(50);
  }
  return { proc, dir, portFile };
}

function connect(url) {
  const ws = new WebSocket(url);
  let next = 1;
  const waiting = new Map(), handlers = [];
  ws.onmessage = m => {
    const msg = JSON.parse(m.data);
    if (msg.id && waiting.has(msg.id)) {
      const { ok, fail } = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) fail(new Error(JSON.stringify(msg.error))); else ok(msg.result);
    } else if (msg.method) {
      for (const h of handlers) h(msg);
    }
  };
  const send = (method, params) => new Promise((ok, fail) => {
    const id = next++;
    waiting.set(id, { ok, fail });
    ws.send(JSON.stringify({ id, method, params: params || {} }));
  });
  return new Promise((ok, fail) => {
    ws.onopen = () => ok({ ws, send, on: h => handlers.push(h) });
    ws.onerror = e => fail(new Error('websocket: ' + (e.message || 'error')));
    // chromium gone (a renderer crash takes the page's socket): every
    // question still waiting fails, rather than waiting for ever
    ws.onclose = () => {
      for (const { fail: f } of waiting.values()) f(new Error('chromium closed the connection'));
      waiting.clear();
    };
  });
}

// The whole drive has CDP_TIMEOUT_S (default 240) seconds: a browser that
// stops answering ends the driver with one FAIL line and its processes
// killed, never a suite that waits for ever (CI has a limit of its own).
function watchdog(seconds, what) {
  return setTimeout(() => {
    console.log('FAIL driver: no end after ' + seconds + ' s (' + what() + ')');
    process.exit(1);
  }, seconds * 1000);
}

async function main() {
  const [page, steps, ...rest] = process.argv.slice(2);
  const width = +(process.env.CDP_WIDTH || 1280), height = +(process.env.CDP_HEIGHT || 900);
  let stage = 'starting chromium';
  const dog = watchdog(+(process.env.CDP_TIMEOUT_S || 240), () => stage);
  const { proc, dir, portFile } = await launch(width, height);
  stage = 'waiting for the page';
  const out = [];
  try {
    // the port file may come before the server listens, and the list
    // before its page: up to 30 s (a loaded machine: the suites run two
    // at a time)
    let target = null;
    for (let i = 0; i < 300 && !target; i++) {
      // read again each time: the file may be seen before its port is in it
      const port = fs.readFileSync(portFile, 'utf8').split('\n')[0].trim();
      const list = /^[0-9]+$/.test(port) ?
        await fetch('http://127.0.0.1:' + port + '/json/list', { signal: AbortSignal.timeout(5000) })
          .then(r => r.json(), () => null) : null;
      target = list && list.find(t => t.type === 'page');
      if (!target)
        await sleep(100);
    }
    if (!target)
      throw new Error('chromium: no page to drive after 30 s');
    const cdp = await connect(target.webSocketDebuggerUrl);
    const errors = [], requests = [], dialogs = [];
    const url = 'file://' + path.resolve(page);
    let loaded = false;
    cdp.on(m => {
      const p = m.params;
      if (m.method === 'Runtime.exceptionThrown')
        errors.push('exception: ' + (p.exceptionDetails.exception ? p.exceptionDetails.exception.description
          : p.exceptionDetails.text));
      else if (m.method === 'Runtime.consoleAPICalled' && /^(error|assert|warning)$/.test(p.type))
        errors.push('console.' + p.type + ': ' + p.args.map(a => a.value !== undefined ? a.value : a.description).join(' '));
      else if (m.method === 'Log.entryAdded' && p.entry.level === 'error')
        errors.push('log: ' + p.entry.text + (p.entry.url ? ' (' + p.entry.url + ')' : ''));
      else if (m.method === 'Network.requestWillBeSent' && p.request.url !== url)
        requests.push(p.request.url.slice(0, 200));
      else if (m.method === 'Page.javascriptDialogOpening') {
        dialogs.push(p.type + ': ' + p.message);
        cdp.send('Page.handleJavaScriptDialog', { accept: false }).catch(() => {});
      } else if (m.method === 'Page.loadEventFired') loaded = true;
    });
    for (const d of ['Runtime', 'Log', 'Network', 'Page']) await cdp.send(d + '.enable');
    const t0 = Date.now();
    await cdp.send('Page.navigate', { url });
    const evaluate = async expr => {
      const r = await cdp.send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
      if (r.exceptionDetails) throw new Error('in page: ' + (r.exceptionDetails.exception
        ? r.exceptionDetails.exception.description : r.exceptionDetails.text));
      return r.result.value;
    };
    let ready = null;
    for (let i = 0; i < 600 && ready === null; i++) {
      if (loaded) ready = await evaluate("document.body && document.body.getAttribute('data-ready')");
      if (ready === null) await sleep(25);
    }
    const readyMs = Date.now() - t0;
    const mouse = (type, x, y) => cdp.send('Input.dispatchMouseEvent',
      { type, x, y, button: 'left', buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1 });
    const api = {
      evaluate,
      sleep,
      async click(x, y) { await mouse('mouseMoved', x, y); await mouse('mousePressed', x, y); await mouse('mouseReleased', x, y); },
      async drag(x0, y0, x1, y1) {
        await mouse('mouseMoved', x0, y0); await mouse('mousePressed', x0, y0);
        for (let i = 1; i <= 5; i++) await mouse('mouseMoved', x0 + (x1 - x0) * i / 5, y0 + (y1 - y0) * i / 5);
        await mouse('mouseReleased', x1, y1);
      },
      async hover(x, y) { await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none' }); },
      async type(text) { await cdp.send('Input.insertText', { text }); },
      // a screenshot of the elements matching sel (their union)
      async shot(sel, file) {
        const box = await evaluate('(() => { let a = Infinity, b = Infinity, c = -Infinity, d = -Infinity;' +
          ' for (const e of document.querySelectorAll(' + JSON.stringify(sel) + ')) { const r = e.getBoundingClientRect();' +
          ' a = Math.min(a, r.left); b = Math.min(b, r.top); c = Math.max(c, r.right); d = Math.max(d, r.bottom); }' +
          ' return [a + scrollX - 4, b + scrollY - 4, c - a + 8, d - b + 8]; })()');
        const r = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true,
          clip: { x: box[0], y: box[1], width: box[2], height: box[3], scale: 1 } });
        fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
      },
    };
    stage = 'the steps of ' + (steps || 'none');
    if (ready === null) errors.push('the page never set data-ready');
    else if (steps) for (const line of await require(path.resolve(steps))(api, rest)) out.push(line);
    await sleep(100);
    out.push('ready_ms ' + readyMs);
    out.push('errors ' + errors.length, ...errors.map(e => '  ' + e));
    out.push('requests ' + requests.length, ...requests.map(e => '  ' + e));
    out.push('dialogs ' + dialogs.length, ...dialogs.map(e => '  ' + e));
    cdp.ws.close();
  } finally {
    const gone = new Promise(r => proc.exitCode !== null ? r() : proc.on('exit', r));
    try { process.kill(-proc.pid, 'SIGKILL'); } catch (e) { proc.kill('SIGKILL'); }
    stage = 'ending chromium';
    await gone;
    chromium = null;
    await sleep(100);
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
  clearTimeout(dog);
  console.log(out.join('\n'));
}

main().catch(e => { console.log('FAIL driver: ' + e.message); process.exit(1); });
