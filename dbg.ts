import { generateCatalog } from './scripts/generate-catalog.ts';
for (const game of ['digimon','gundam','grand-archive','chrono-core'] as const) {
  const cards = [...generateCatalog({ game, count: 200, seed: 7 })];
  console.log(game, cards.map(c=>JSON.stringify(c)).join(',').length / 200);
}
