/**
 * The /search page's files (routes/search-page.ts serves them): a plain page and one ES module,
 * which imports /search/engine.js (the contract's pinned-engine loader and query logic, the ones
 * @snapdeck/client runs). The module loads the chosen game's index straight from this gateway
 * (the descriptor, then the engine, checked against the pins before any of it runs, and its
 * chunks under the descriptor's baseUrl) and runs every query in the browser with the contract's
 * cardSearch: this page holds no query logic of its own. Card data is only ever written with
 * textContent, never as HTML.
 */
import { GAMES, SEARCH_FUZZY_MODULE, SEARCH_NAMES_FILE, SEARCH_PATHS } from '@snapdeck/contract';

export const SEARCH_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>snapdeck card search</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/search/app.css">
</head>
<body>
<header>
<h1>Card search</h1>
<form id="search-form" role="search">
<label>Game <select id="game"></select></label>
<input id="q" type="search" placeholder="Card name, id or rules text" autocomplete="off" autofocus>
</form>
<p id="status" aria-live="polite"></p>
</header>
<main>
<aside id="facets" aria-label="Filters"></aside>
<section>
<p id="summary"></p>
<ol id="results"></ol>
</section>
</main>
<script type="module" src="/search/app.js"></script>
</body>
</html>
`;

export const SEARCH_CSS = `body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{padding:12px 20px;background:#fff;border-bottom:1px solid #d8dde3}
h1{font-size:20px;margin:0 0 8px}
form{display:flex;gap:12px;align-items:center}
#q{flex:1;font-size:16px;padding:6px 8px}
main{display:flex;gap:20px;padding:16px 20px}
aside{width:240px;flex:none}
aside fieldset{border:1px solid #d8dde3;background:#fff;margin:0 0 12px;padding:6px 10px;max-height:220px;overflow:auto}
aside label{display:flex;justify-content:space-between;gap:8px;font-size:13px}
section{flex:1}
ol{list-style:none;padding:0;margin:0}
li.hit{background:#fff;border:1px solid #d8dde3;margin:0 0 6px;padding:6px 10px;display:grid;grid-template-columns:1fr auto;gap:2px 12px}
.name{font-weight:600}.id{font-family:monospace}.meta{color:#59636e;font-size:13px}
#status{color:#59636e;margin:6px 0 0;font-size:13px}
`;

const games = GAMES.map((g) => ({ slug: g.slug, displayName: g.displayName, descriptor: SEARCH_PATHS.descriptor(g.searchIndexName) }));

export const SEARCH_APP = `import { cardSearch, importPinnedModule, openPinnedEngine } from '/search/engine.js';
const GAMES = ${JSON.stringify(games)};
const FILES = ${JSON.stringify({ fuzzy: SEARCH_FUZZY_MODULE, names: SEARCH_NAMES_FILE })};
const SHOWN = 25;
const $ = (id) => document.getElementById(id);
const el = (tag, className, text) => { const node = document.createElement(tag); if (className) node.className = className; if (text !== undefined) node.textContent = text; return node; };
const opened = new Map();
// The engine's files: from this gateway only, with this page's fetch, and what a refused one says.
const engineFiles = {
  origins: [location.origin],
  fetch: (url, init) => fetch(url, init),
  refuse: (kind, url, status, detail) => new Error(kind === 'pin' ? url + ' is not the engine file this page runs (' + detail + ')' : url + ': ' + detail),
};
const state = { game: GAMES[0].slug, filters: {}, run: 0 };

async function openIndex(slug) {
  if (!opened.has(slug)) {
    opened.set(slug, (async () => {
      const game = GAMES.find((g) => g.slug === slug);
      const response = await fetch(game.descriptor);
      if (!response.ok) throw new Error('no search index for ' + game.displayName);
      const descriptor = (await response.json()).data;
      const base = new URL(descriptor.baseUrl, location.href).href;
      const engine = await openPinnedEngine(base, engineFiles);
      await engine.options({ basePath: base, baseUrl: '/' });
      await engine.init();
      await engine.filters();
      // The index's names and fuzzy matcher, loaded by the query logic on a first typo only.
      const names = async () => {
        const [{ default: MiniSearch }, list] = await Promise.all([importPinnedModule(FILES.fuzzy, base, engineFiles), fetch(base + FILES.names).then((r) => r.json())]);
        return { MiniSearch, names: list };
      };
      return { descriptor, query: cardSearch(engine, names) };
    })());
    opened.get(slug).catch(() => opened.delete(slug));
  }
  return opened.get(slug);
}

const nameOf = (hit) => (typeof hit.name === 'string' ? hit.name : hit.name.english);

function renderFacets(descriptor, counts) {
  const box = $('facets');
  box.replaceChildren();
  for (const facet of descriptor.facets) {
    const values = Object.entries(counts[facet.field] ?? {}).filter(([value, n]) => n > 0 || (state.filters[facet.field] ?? []).includes(value));
    if (values.length === 0) continue;
    const set = el('fieldset');
    set.dataset.facet = facet.field;
    set.append(el('legend', '', facet.label));
    for (const [value, n] of values.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
      const label = el('label');
      const box2 = el('input');
      box2.type = 'checkbox';
      box2.value = value;
      box2.checked = (state.filters[facet.field] ?? []).includes(value);
      box2.addEventListener('change', () => {
        const chosen = new Set(state.filters[facet.field] ?? []);
        if (box2.checked) chosen.add(value); else chosen.delete(value);
        if (chosen.size > 0) state.filters[facet.field] = [...chosen]; else delete state.filters[facet.field];
        search();
      });
      const text = el('span', 'value', value);
      text.prepend(box2);
      label.append(text, el('span', 'count', String(n)));
      set.append(label);
    }
    box.append(set);
  }
}

function renderHits(hits) {
  $('results').replaceChildren(...hits.map((hit) => {
    const item = el('li', 'hit');
    item.dataset.id = hit.id;
    item.append(el('span', 'name', nameOf(hit)), el('span', 'id', hit.id));
    item.append(el('span', 'meta set', hit.setName ?? hit.setId ?? ''), el('span', 'meta type', hit.cardType ?? hit.typeLine ?? ''));
    return item;
  }));
}

async function search() {
  const run = ++state.run;
  const term = $('q').value.trim();
  try {
    $('status').textContent = 'Searching…';
    const index = await openIndex(state.game);
    const found = await index.query.search(term, { filters: state.filters, limit: SHOWN });
    if (run !== state.run) return;
    renderFacets(index.descriptor, found.facets);
    renderHits(found.hits);
    $('summary').textContent = found.total + ' cards' + (found.correctedTo ? ' — Showing results for ' + found.correctedTo : '');
    $('status').textContent = 'Version ' + index.descriptor.version;
    document.body.dataset.ready = String(run);
  } catch (error) {
    if (run !== state.run) return;
    $('status').textContent = String(error.message ?? error);
    $('results').replaceChildren();
    $('summary').textContent = '';
    document.body.dataset.ready = String(run);
  }
}

for (const game of GAMES) {
  const option = el('option', '', game.displayName);
  option.value = game.slug;
  $('game').append(option);
}
$('game').addEventListener('change', () => { state.game = $('game').value; state.filters = {}; search(); });
let timer;
$('q').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(search, 150); });
$('search-form').addEventListener('submit', (event) => { event.preventDefault(); search(); });
search();
`;
