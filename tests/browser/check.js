// check.js: the exports in a real browser (headless Chromium driven by
// playwright-core): tracelite's Chrome trace-event JSON and folded stacks
// open in speedscope and draw a profile; the flamegraph() SVG renders
// with each frame as wide as its value, zooms and searches.
//
//   node check.js speedscope FILE SHOT.png [NAME]
//                                            the profile loads (the title
//                                            names FILE, or NAME: the name a
//                                            speedscope file gives itself)
//                                            and the screenshot is not an
//                                            empty view
//   node check.js svg FILE.svg FOLDED        every frame's rendered width is
//                                            its share of the folded counts
//
// CHROMIUM names the browser (default /usr/bin/chromium), SPEEDSCOPE_TIMEOUT
// the seconds speedscope may take to load a file (default 30). Prints one
// line, "ok: ..." or "FAIL: ...", and exits 0 or 1.
'use strict';
const path = require('path');
const fs = require('fs');
const { chromium } = require('playwright-core');

function fail(msg) { console.log('FAIL: ' + msg); process.exitCode = 1; }

// Distinct colours (quantised) in a PNG, decoded by the browser itself.
async function colours(browser, png) {
  const page = await browser.newPage();
  const n = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add((d[i] >> 4) << 8 | (d[i + 1] >> 4) << 4 | (d[i + 2] >> 4));
    return seen.size;
  }, png.toString('base64'));
  await page.close();
  return n;
}

async function speedscope(browser, file, shot, want) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + path.join(__dirname, 'node_modules/speedscope/dist/release/index.html'));
  // the page's JS heap at its largest (Chromium's JSHeapUsedSize, sampled
  // every second when the page answers) and the time the file takes to load
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  let heap = 0;
  const sample = setInterval(() => {
    cdp.send('Performance.getMetrics').then((m) => {
      const h = m.metrics.find((x) => x.name === 'JSHeapUsedSize');
      if (h && h.value > heap) heap = h.value;
    }, () => {});
  }, 1000);
  const t0 = Date.now();
  await page.setInputFiles('input[type=file]', file);
  const name = path.basename(file);
  try {
    await page.waitForFunction(() => document.title.endsWith(' - speedscope'), null,
                               { timeout: 1000 * Number(process.env.SPEEDSCOPE_TIMEOUT || 30), polling: 500 });
    if (!(await page.title()).includes(want || name)) throw new Error('title');
  } catch (e) {
    clearInterval(sample);
    const body = await page.evaluate(() => document.body.innerText.slice(0, 300));
    return fail(`${name}: speedscope did not load it (title "${await page.title()}", page: ${body})`);
  }
  const loaded = (Date.now() - t0) / 1000;
  await page.waitForTimeout(1500);            // the flame chart's first frame
  clearInterval(sample);
  const png = await page.screenshot({ path: shot });
  const n = await colours(browser, png);
  // an empty view is the background and the toolbar: a handful of colours
  if (n < 12) return fail(`${name}: the screenshot has ${n} colours: nothing drawn`);
  if (errors.length) return fail(`${name}: page errors: ${errors.join('; ')}`);
  console.log(`ok: speedscope drew ${name} (${n} colours, ${shot}; loaded in ${loaded} s,`
              + ` JS heap at most ${Math.round(heap / 1048576)} MB)`);
}

// {prefix: summed value} of folded lines "a;b;c N", the root "" included.
function prefixSums(text) {
  const sums = new Map();
  for (const line of text.split('\n')) {
    const m = line.match(/^(.*?);? (\d+(?:\.\d+)?)$/);
    if (!m) continue;
    const parts = m[1].split(';').filter((p) => p !== '');
    for (let i = 0; i <= parts.length; i++) {
      const k = parts.slice(0, i).join(';');
      sums.set(k, (sums.get(k) || 0) + Number(m[2]));
    }
  }
  return sums;
}

async function svg(browser, file, folded) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 600 } });
  await page.goto('file://' + path.resolve(file));
  // each frame: name, value, rendered box; its stack from the frames below it
  const frames = await page.evaluate(() => Array.from(document.querySelectorAll('#frames > g')).map((g) => {
    const r = g.querySelector('rect').getBoundingClientRect();
    const t = g.querySelector('title').textContent.match(/^(.*) \(([0-9.e+]+), [0-9.]+%\)$/);
    return { name: t[1], v: Number(t[2]), x: r.x, y: r.y, w: r.width };
  }));
  const want = prefixSums(fs.readFileSync(folded, 'utf8'));
  const total = want.get('');
  let checked = 0;
  for (const f of frames) {
    // the stack: walk down (greater y) through the frames that cover this one
    const stack = [];
    let cur = f;
    for (;;) {
      const below = frames.find((o) => Math.abs(o.y - (cur.y + 16)) < 0.5 && o.x <= cur.x + 0.05 && o.x + o.w >= cur.x + cur.w - 0.05);
      if (!below) break;
      stack.unshift(cur.name);
      cur = below;
    }
    const key = stack.join(';');
    if (!want.has(key)) return fail(`frame ${f.name} (${key || "all"}) is not a stack of ${folded}`);
    if (f.name !== (stack.length ? stack[stack.length - 1] : "all")) return fail(`frame ${f.name}: no frame under it`);
    if (f.v !== want.get(key)) return fail(`frame ${key}: value ${f.v}, folded counts ${want.get(key)}`);
    if (Math.abs(f.w - (want.get(key) * 1180) / total) > 0.05) {
      return fail(`frame ${key}: ${f.w} px wide, ${want.get(key)} of ${total} is ${(want.get(key) * 1180) / total} px`);
    }
    checked++;
  }
  const drawn = [...want.values()].filter((v) => (v * 1180) / total >= 0.1).length;
  if (checked !== drawn) return fail(`${checked} frames drawn, ${drawn} stacks at least 0.1 px wide`);
  // click the widest frame above the root: it fills the width; Search marks frames
  const widest = frames.slice(1).reduce((a, b) => (b.w > a.w ? b : a));
  await page.mouse.click(widest.x + 2, widest.y + 5);
  const zoomed = await page.evaluate((n) => {
    const g = Array.from(document.querySelectorAll('#frames > g')).find((e) => e.dataset.name === n);
    return g.querySelector('rect').getBoundingClientRect().width;
  }, widest.name);
  if (Math.abs(zoomed - 1180) > 0.05) return fail(`zoom on ${widest.name}: ${zoomed} px wide, not 1180`);
  page.once('dialog', (d) => d.accept(widest.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await page.click('#search');
  const matched = await page.textContent('#matched');
  if (!/^Matched: [0-9.]+%$/.test(matched)) return fail(`search: "${matched}"`);
  console.log(`ok: ${path.basename(file)}: ${checked} frames as wide as the folded counts; zoom, search (${matched})`);
}

(async () => {
  const [mode, file, arg, arg2] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--allow-file-access-from-files'],
  });
  try {
    if (mode === 'speedscope') await speedscope(browser, file, arg, arg2);
    else if (mode === 'svg') await svg(browser, file, arg);
    else fail('usage: node check.js speedscope FILE SHOT.png [NAME] | svg FILE.svg FOLDED');
  } catch (e) {
    fail(String(e && e.stack || e));
  } finally {
    await browser.close();
  }
})();
