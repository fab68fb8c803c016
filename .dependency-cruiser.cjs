/**
 * The house's import rules, checked by `npm run lint` (which `npm test` runs first, as pretest).
 * Layers, lower never importing higher (docs/contributors/architecture.md, "The packages"):
 *   contract → snapshot → store → gateway → cli; client depends on the contract alone.
 * Type-only imports count (tsPreCompilationDeps): a cycle through `import type` is still a
 * cycle a reader has to untangle.
 */
const LAYERS = ['contract', 'snapshot', 'store', 'gateway', 'cli'];

/** A layer may not import any layer after it, nor the client (which is for partners). */
const upward = LAYERS.map((layer, i) => ({
  name: `${layer}-imports-no-higher-layer`,
  comment: `packages/${layer} may import only ${LAYERS.slice(0, i).join(', ') || 'no other package'}`,
  severity: 'error',
  from: { path: `^packages/${layer}/` },
  to: { path: `^packages/(${[...LAYERS.slice(i + 1), 'client'].join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: split the shared part out, or invert the dependency.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { circular: true },
    },
    ...upward,
    {
      name: 'client-imports-only-the-contract',
      comment: 'packages/client is what partners install: it depends on the contract alone.',
      severity: 'error',
      from: { path: '^packages/client/' },
      to: { path: '^packages/(snapshot|store|gateway|cli)/' },
    },
    {
      name: 'gateway-http-imports-no-step-or-route',
      comment: "packages/gateway/src/http/ (the server, the pipeline, responses) is what steps and routes are built on: it imports none of them; what both need lives in http/.",
      severity: 'error',
      from: { path: '^packages/gateway/src/http/' },
      to: { path: '^packages/gateway/src/', pathNot: '^packages/gateway/src/(http/|env[.]ts$)' },
    },
    {
      name: 'packages-import-each-other-by-name',
      comment: "Another package is imported as @snapdeck/<name>, never by a relative path into its src/.",
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: '^packages/$1/', dependencyTypes: ['local'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Workspace links (node_modules/@snapdeck/*) resolve to packages/* through their package.json
    // "exports": rules see the real path.
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};
