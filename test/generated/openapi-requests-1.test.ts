/** Requests generated from the served OpenAPI document, part 1 of 2: see openapi-requests.suite.ts. */
import { openApiRequestSuite } from './openapi-requests.suite.ts';

openApiRequestSuite({ index: 1, of: 2, file: 'test/generated/openapi-requests-1.test.ts' });
