import { OperatorError } from '@snapdeck/contract';

/** How the S3 driver (s3.ts) tells the SDK's errors apart. */
export interface AwsError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

export function statusOf(error: unknown): number | undefined {
  return (error as AwsError)?.$metadata?.httpStatusCode;
}

/** A missing object (a missing bucket is not one: isMissingBucket). */
export function isNotFound(error: unknown): boolean {
  const name = (error as AwsError)?.name;
  if (isMissingBucket(error)) return false;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404;
}

/** S3 says the bucket itself does not exist (GET, PUT, LIST; a HEAD cannot tell it from a missing key). */
export function isMissingBucket(error: unknown): boolean {
  return (error as AwsError)?.name === 'NoSuchBucket';
}

/** The bucket of a location does not exist: named, with where it was looked for and what to do. */
export class MissingBucketError extends OperatorError {
  constructor(bucket: string, endpoint: string, options?: { cause?: unknown }) {
    const endpointFlag = endpoint.startsWith('AWS S3') ? '' : ` --endpoint-url ${endpoint}`;
    super(
      `bucket ${bucket} does not exist at ${endpoint}: create it first (\`aws s3 mb s3://${bucket}${endpointFlag}\`, docs/operators/object-storage.md), or correct the bucket name, AWS_REGION or SNAPDECK_S3_ENDPOINT`,
      options,
    );
  }
}

export function isPreconditionFailure(error: unknown): boolean {
  const name = (error as AwsError)?.name;
  const status = statusOf(error);
  // 409 ConditionalRequestConflict: another conditional write to the key was in progress.
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || status === 412 || status === 409;
}

/**
 * True for failures that mean "storage cannot be reached right now" rather than "the request was
 * wrong": no HTTP answer at all (refused, reset, DNS, timeout), or 5xx / throttling still failing
 * after the SDK's retries.
 */
export function isUnavailable(error: unknown): boolean {
  const e = error as AwsError;
  if (e?.name === 'CredentialsProviderError') return false;
  const status = statusOf(error);
  if (status === undefined) return true;
  return status >= 500 || status === 429 || e.name === 'SlowDown' || e.name === 'RequestTimeout';
}
