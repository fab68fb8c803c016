export { OPENAPI_VERSION, buildOpenApiDocument, type OpenApiOptions } from './document.ts';
export { HEADERS, type HeaderName } from './headers.ts';
