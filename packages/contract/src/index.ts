export * from './errors.ts';
export * from './games.ts';
export * from './cards/model.ts';
export * from './cards/index.ts';
export * from './schemas.ts';
export * from './limits.ts';
export * from './openapi/index.ts';
export * from './operator-error.ts';
