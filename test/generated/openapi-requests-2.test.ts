/** Requests generated from the served OpenAPI document, part 2 of 2: see openapi-requests.suite.ts. */
import { openApiRequestSuite } from './openapi-requests.suite.ts';

openApiRequestSuite({ index: 2, of: 2, file: 'test/generated/openapi-requests-2.test.ts' });
