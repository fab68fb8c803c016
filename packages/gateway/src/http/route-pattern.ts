/** Converts a Hono route pattern ('/v1/games/:slug/cards') into a RegExp matching its paths. */
export function patternToRegExp(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}
