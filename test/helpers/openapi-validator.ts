/**
 * Checks one HTTP response against an OpenAPI document, the way a partner's validator would:
 * the operation is found by method and path, the status must be documented (an undocumented
 * one may only be the `default` 404 "Not found" / 405 "Method not allowed" / 400 "Invalid request
 * path"), the error string
 * must be one the response lists, the content type must be documented, the JSON body must
 * validate with ajv (JSON Schema 2020-12) against the document's schema, and every documented
 * header must be present when required and match its schema when present.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ERRORS } from '@snapdeck/contract';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, unknown>; servers?: Array<{ url: string }> };

export interface CheckedResponse {
  method: string;
  url: URL;
  status: number;
  headers: Headers;
  text: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly prefix: string;
  private readonly routes: Array<{ path: string; matcher: RegExp; params: number }>;

  constructor(readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
    this.prefix = doc.servers?.[0]?.url ?? '';
    this.routes = Object.keys(doc.paths)
      .map((path) => ({
        path,
        matcher: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
        params: (path.match(/\{/g) ?? []).length,
      }))
      // Concrete paths match before templated ones (OpenAPI 3.1, "Path Templating Matching").
      .sort((a, b) => a.params - b.params);
  }

  /** The documented path a request path is, or null (an unknown route). */
  pathOf(pathname: string): string | null {
    if (!pathname.startsWith(`${this.prefix}/`)) return null;
    const rest = pathname.slice(this.prefix.length);
    return this.routes.find((route) => route.matcher.test(rest))?.path ?? null;
  }

  private compile(schema: unknown): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"doc#/components/')));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The problems of one response (empty when it conforms). */
  check(r: CheckedResponse): string[] {
    const where = `${r.method} ${r.url.pathname}${r.url.search} → ${r.status}`;
    const problems: string[] = [];
    const fail = (what: string) => problems.push(`${where}: ${what}`);
    let body: any;
    const contentType = r.headers.get('content-type')?.split(';')[0]?.trim();
    if (contentType === 'application/json' && r.text !== '') {
      try {
        body = JSON.parse(r.text);
      } catch {
        fail('application/json body that is not JSON');
        return problems;
      }
    }

    const path = this.pathOf(r.url.pathname);
    const method = r.method === 'HEAD' ? 'get' : r.method.toLowerCase();
    const item = path ? this.doc.paths[path]! : undefined;
    const operation = item?.[method];
    let response: any;
    if (!operation) {
      // No operation: an unknown route (404) or a method the route does not have (405).
      const expected = item ? 405 : 404;
      // A path not in normal form (`//`, `%2F` …) is refused on any path, documented in `default`.
      const invalidPath = r.status === 400 && body?.error === ERRORS.invalidPath;
      if (r.status !== expected && !invalidPath) fail(`expected ${expected} for ${item ? 'a method the path does not have' : 'an undocumented path'}`);
      const any = item ? Object.entries(item).find(([k]) => METHODS.includes(k))![1] : Object.values(Object.values(this.doc.paths)[0]!)[0];
      response = any.responses.default;
    } else {
      response = operation.responses[String(r.status)] ?? operation.responses[`${String(r.status)[0]}XX`];
      if (!response) {
        const known = body?.error === 'Not found' || body?.error === 'Method not allowed';
        if (!known) fail(`status ${r.status} is not documented for ${method.toUpperCase()} ${path}`);
        response = operation.responses.default;
      }
    }
    if (!response) return problems;

    if (r.status >= 400 && body && typeof body.error === 'string' && !String(response.description).includes(`"${body.error}"`)) {
      fail(`error string "${body.error}" is not listed in the response's description`);
    }

    for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
      const value = r.headers.get(name);
      if (value === null) {
        if (header.required) fail(`required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      let parsed: unknown = value;
      if (schema.type === 'integer' || schema.type === 'number') {
        if (!/^-?\d+(\.\d+)?$/.test(value)) {
          fail(`header ${name}: ${JSON.stringify(value)} is not a number`);
          continue;
        }
        parsed = Number(value);
      }
      const validate = this.compile(schema);
      if (!validate(parsed)) fail(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }

    if (r.status === 304 || r.method === 'HEAD' || r.status === 204) {
      if (r.text !== '') fail('a body on a response that has none');
      return problems;
    }
    const media = response.content?.[contentType ?? ''];
    if (!media) {
      fail(`content type ${contentType} is not documented (documented: ${Object.keys(response.content ?? {}).join(', ') || 'none'})`);
      return problems;
    }
    if (media.schema && contentType === 'application/json') {
      const validate = this.compile(media.schema);
      if (!validate(body)) fail(`body does not match the schema: ${this.ajv.errorsText(validate.errors?.slice(0, 5))} — ${r.text.slice(0, 200)}`);
    }
    return problems;
  }
}
