/**
 * Credentials the test servers' clients use, distinctive so that the secret scan
 * (helpers/secret-scan.ts) finds them in any output that prints them. Kept apart from the servers'
 * helpers so that the scan's setup file loads no server code.
 */

/** The S3 secret access key of test/helpers/s3-server.ts (moto accepts any). */
export const S3_TEST_SECRET = 'snapdeck-s3-test-secret-7f3a9c';
