/** The search operations of /v1 (decisions.md "Search"): the descriptor and the files of a version's index. */
import { GAMES } from '../games.ts';
import { SEARCH_ENGINE } from '../search.ts';
import { TAGS, err, jsonOf, ref, type OperationSpec } from './operation-spec.ts';

const INDEX_NAME = {
  name: 'searchIndexName', in: 'path', required: true, description: 'A game\'s searchIndexName (GET /v1/games).',
  schema: { type: 'string', enum: GAMES.map((g) => g.searchIndexName) },
};
const VERSION = { name: 'version', in: 'path', required: true, description: 'The version of the descriptor\'s baseUrl.', schema: { type: 'string' } };
const FILE = { name: 'file', in: 'path', required: true, description: 'A file the engine asks for (pagefind.js, pagefind-entry.json, wasm.en.pagefind …).', schema: { type: 'string' } };
const FOLDER = { name: 'folder', in: 'path', required: true, description: 'A folder of the engine\'s chunks.', schema: { type: 'string', enum: ['index', 'filter', 'fragment'] } };
const notFound = err(404, 'No public game has this search index, the version is not kept, or the index has no such file', 'searchIndexNotFound');
const fileContent = {
  'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
  'text/javascript': { schema: { type: 'string' } },
  'application/json': { schema: {} },
};
const fileDescription =
  `A file of one version's client-side search index (${SEARCH_ENGINE.name} ${SEARCH_ENGINE.version}, plus names.json and minisearch.js for typo-tolerant name matching), ` +
  'read by the engine in the client, never by hand. No key needed (limited per client address). Cached `public, max-age=31536000, immutable` while the version is kept; ' +
  'text files come brotli or gzip encoded when asked, the engine\'s chunks as stored (they are compressed already).';

export function searchOperations(): OperationSpec[] {
  return [
    {
      path: '/search/{searchIndexName}',
      operationId: 'getSearchIndex',
      summary: "Describe a game's client-side search index",
      description:
        "The current version's search index of a game: the engine, the facets (filters with counts) and `baseUrl`, where the version's files are. " +
        'Load the engine from `baseUrl` and run queries in the client (@snapdeck/client searchCards does). No key needed (limited per client address); cached like GET /games.',
      tag: TAGS.search,
      access: 'address',
      parameters: [INDEX_NAME],
      ok: { description: 'The descriptor', content: jsonOf(ref('SearchIndexResponse')) },
      errors: [notFound],
    },
    {
      path: '/search/{searchIndexName}/{version}/{file}',
      operationId: 'getSearchIndexFile',
      summary: 'Fetch a file of a search index',
      description: fileDescription,
      tag: TAGS.search,
      access: 'address',
      parameters: [INDEX_NAME, VERSION, FILE],
      ok: { description: 'The file', content: fileContent },
      errors: [notFound],
    },
    {
      path: '/search/{searchIndexName}/{version}/{folder}/{file}',
      operationId: 'getSearchIndexChunk',
      summary: 'Fetch a chunk of a search index',
      description: fileDescription,
      tag: TAGS.search,
      access: 'address',
      parameters: [INDEX_NAME, VERSION, FOLDER, FILE],
      ok: { description: 'The chunk', content: fileContent },
      errors: [notFound],
    },
  ];
}
