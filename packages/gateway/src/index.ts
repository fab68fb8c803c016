export * from './app.ts';
export * from './quota/counter.ts';
export * from './quota/redis.ts';
export * from './middleware/deprecation.ts';
export { redactedUrl } from './middleware/access-log.ts';
export * from './server.ts';
export * from './http/surrogate-keys.ts';
export { buildInfo, type BuildInfo } from './build-info.ts';
export { StorageHealth, type StorageHealthOptions, type StorageRole } from './storage-health.ts';
