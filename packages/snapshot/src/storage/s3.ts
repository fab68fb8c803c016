import { createHash } from 'node:crypto';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import {
  ObjectNotFoundError, PreconditionFailedError, StorageUnavailableError, type ObjectInfo, type PutOptions, type StorageDriver, type StoredObject,
} from './driver.ts';
import { SHA256_HEX_PATTERN, sha256Hex } from '../hash.ts';
import { MissingBucketError, isMissingBucket, isNotFound, isPreconditionFailure, isUnavailable, statusOf, type AwsError } from './s3-errors.ts';

/**
 * How to reach S3 (or an S3-compatible store). `s3OptionsFromEnv` reads them from the standard
 * AWS variables plus SNAPDECK_S3_ENDPOINT; credentials come from the SDK's default chain unless
 * given here.
 */
export interface S3DriverOptions {
  /** Default: AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1. */
  region?: string;
  /** Endpoint override (MinIO, moto, R2...): path-style addressing is used then. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Attempts per call, first one included; retries back off exponentially with jitter. Default 4. */
  maxAttempts?: number;
  /**
   * Longest time one attempt of a call may take before it is abandoned (and retried); a socket
   * silent for min(this, 30 s) is abandoned too. Default 120 s (a 16 MB segment on a slow link).
   */
  requestTimeoutMs?: number;
  /** Longest wait for a connection. Default 5 s. */
  connectionTimeoutMs?: number;
  /** Keys per ListObjectsV2 page (S3 caps it at 1000, the default); smaller in tests of paging. */
  listPageSize?: number;
  /** A ready client (its own configuration wins over the options above). */
  client?: S3Client;
}

function positiveInt(value: string | undefined): number | undefined {
  return value && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

/**
 * Options from environment variables: AWS_REGION / AWS_DEFAULT_REGION, SNAPDECK_S3_ENDPOINT,
 * SNAPDECK_S3_MAX_ATTEMPTS, SNAPDECK_S3_TIMEOUT_MS. AWS_ACCESS_KEY_ID and friends are passed on
 * explicitly only when `env` is not process.env (the SDK reads process.env itself).
 */
export function s3OptionsFromEnv(env: NodeJS.ProcessEnv = process.env): S3DriverOptions {
  const options: S3DriverOptions = {
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    endpoint: env.SNAPDECK_S3_ENDPOINT || undefined,
    maxAttempts: positiveInt(env.SNAPDECK_S3_MAX_ATTEMPTS),
    requestTimeoutMs: positiveInt(env.SNAPDECK_S3_TIMEOUT_MS),
  };
  if (env !== process.env && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    options.credentials = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
  }
  return options;
}

/** Splits s3://bucket/some/prefix into the bucket and the key prefix ('' or 'some/prefix/'). */
export function parseS3Location(location: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (!match || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(match[1]!)) {
    throw new Error(`invalid S3 location ${JSON.stringify(location)}: expected s3://bucket/prefix`);
  }
  const path = match[2]!.replace(/^\/+|\/+$/g, '');
  if (path.split('/').some((part) => part === '..' || part === '.') || path.includes('//')) {
    throw new Error(`invalid S3 location ${JSON.stringify(location)}: the prefix has empty, '.' or '..' parts`);
  }
  return { bucket: match[1]!, prefix: path === '' ? '' : `${path}/` };
}

type Sdk = typeof import('@aws-sdk/client-s3');
/**
 * The AWS SDK, imported on first use: importing it takes 0.3 s (0.6 s under load), which every
 * CLI command and gateway storing in a folder paid before it was lazy (and tests spawn the CLI
 * hundreds of times).
 */
let sdk: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdk ??= import('@aws-sdk/client-s3'));

function md5Hex(body: Uint8Array): string {
  return createHash('md5').update(body).digest('hex');
}

/**
 * A bucket (and key prefix) on S3 or an S3-compatible store.
 *
 * - `put` stores the SHA-256 and MD5 of the body as object metadata (x-amz-meta-sha256,
 *   x-amz-meta-md5); `head` reports that SHA-256 only while the object's ETag still equals the
 *   stored MD5 (always true for a single-part PUT without SSE-KMS), so an object replaced by
 *   another tool with copied metadata is reported as "checksum unknown", never as a wrong one.
 * - Conditional writes map to If-None-Match: * / If-Match: etag; 412 and 409
 *   (ConditionalRequestConflict) become PreconditionFailedError. A conditional PUT that succeeded
 *   but whose answer was lost may be retried by the SDK and then fail with 412: callers that care
 *   (the publisher) re-read the object after a precondition failure.
 * - Every call has a socket timeout and is retried with exponential backoff (SDK standard retry
 *   mode); what still fails for lack of an answer becomes StorageUnavailableError.
 */
export class S3Driver implements StorageDriver {
  readonly location: string;
  readonly bucket: string;
  private readonly prefix: string;
  /** The client, made on first use (with the SDK: loadSdk); or the one given. */
  private client: Promise<S3Client> | undefined;
  private readonly config: S3ClientConfig;
  private readonly listPageSize: number | undefined;
  /** Where the bucket is looked for, for messages: the endpoint, or AWS S3 and the region. */
  private readonly endpoint: string;

  constructor(location: string, options: S3DriverOptions = s3OptionsFromEnv()) {
    const { bucket, prefix } = parseS3Location(location);
    this.bucket = bucket;
    this.prefix = prefix;
    this.location = `s3://${bucket}/${prefix.replace(/\/$/, '')}`;
    this.listPageSize = options.listPageSize;
    this.endpoint = options.endpoint ?? `AWS S3 (region ${options.region ?? 'us-east-1'})`;
    if (options.client) this.client = Promise.resolve(options.client);
    const requestTimeoutMs = options.requestTimeoutMs ?? 120_000;
    this.config = {
      region: options.region ?? 'us-east-1',
      maxAttempts: options.maxAttempts ?? 4,
      retryMode: 'standard',
      requestHandler: {
        // Whole attempt (a TimeoutError, then retried), and silence on the socket within it.
        requestTimeout: requestTimeoutMs,
        throwOnRequestTimeout: true,
        socketTimeout: Math.min(requestTimeoutMs, 30_000),
        connectionTimeout: options.connectionTimeoutMs ?? 5_000,
      },
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    };
  }

  /** Runs `send` with the client and the SDK's module (both made or loaded on first use). */
  private async call<T>(send: (client: S3Client, sdk: Sdk) => Promise<T>): Promise<T> {
    const module = await loadSdk();
    this.client ??= Promise.resolve(new module.S3Client(this.config));
    return send(await this.client, module);
  }

  private objectKey(key: string): string {
    if (key.startsWith('/') || key.split('/').some((part) => part === '..' || part === '')) {
      throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
    }
    return this.prefix + key;
  }

  /** Sends a command, turning "no answer" failures into StorageUnavailableError. */
  private async send<T>(operation: string, key: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isMissingBucket(error)) throw new MissingBucketError(this.bucket, this.endpoint, { cause: error });
      if (isNotFound(error) || isPreconditionFailure(error)) throw error;
      const e = error as AwsError;
      const what = `${operation} ${this.location}/${key}`;
      if (isUnavailable(error)) {
        throw new StorageUnavailableError(`storage unavailable: ${what} failed: ${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`, { cause: error });
      }
      throw new Error(`${what} failed: ${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`, { cause: error });
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    const Key = this.objectKey(key);
    try {
      return await this.send('GET', key, async () => {
        const out = await this.call((c, m) => c.send(new m.GetObjectCommand({ Bucket: this.bucket, Key })));
        const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
        return { body, size: body.length, etag: out.ETag ?? '' };
      });
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    const Key = this.objectKey(key);
    if (length === 0) {
      const info = await this.head(key);
      if (!info) throw new ObjectNotFoundError(key, `${this.location}/${key} does not exist`);
      if (info.size < offset) throw new Error(`${key} is shorter than ${offset} bytes`);
      return new Uint8Array(0);
    }
    try {
      const body = await this.send('GET (range)', key, async () => {
        const out = await this.call((c, m) => c.send(new m.GetObjectCommand({ Bucket: this.bucket, Key, Range: `bytes=${offset}-${offset + length - 1}` })));
        return out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
      });
      if (body.length !== length) throw new Error(`${key} is shorter than ${offset + length} bytes`);
      return body;
    } catch (error) {
      if (isNotFound(error)) throw new ObjectNotFoundError(key, `${this.location}/${key} does not exist`, { cause: error });
      if (statusOf(error) === 416) throw new Error(`${key} is shorter than ${offset + length} bytes`, { cause: error });
      throw error;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const Key = this.objectKey(key);
    try {
      return await this.send('HEAD', key, async () => {
        const out = await this.call((c, m) => c.send(new m.HeadObjectCommand({ Bucket: this.bucket, Key })));
        const etag = out.ETag ?? '';
        const info: ObjectInfo = { size: out.ContentLength ?? 0, etag };
        const sha256 = out.Metadata?.sha256;
        const md5 = out.Metadata?.md5;
        const plainEtag = etag.replace(/"/g, '');
        // Trust the stored SHA-256 only while S3's own content hash still agrees with the MD5
        // recorded next to it (ETags that are not a plain MD5 cannot be checked: trust them).
        if (sha256 && SHA256_HEX_PATTERN.test(sha256) && (!md5 || !/^[0-9a-f]{32}$/.test(plainEtag) || plainEtag === md5)) {
          info.sha256 = sha256;
        }
        return info;
      });
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async put(key: string, body: Uint8Array, options: PutOptions = {}): Promise<ObjectInfo> {
    const Key = this.objectKey(key);
    const sha256 = sha256Hex(body);
    try {
      const out = await this.send('PUT', key, () =>
        this.call((c, m) =>
          c.send(new m.PutObjectCommand({
            Bucket: this.bucket,
            Key,
            Body: body,
            ContentLength: body.length,
            ContentType: options.contentType ?? 'application/octet-stream',
            Metadata: { sha256, md5: md5Hex(body) },
            ...(options.ifNoneMatch === '*' ? { IfNoneMatch: '*' } : {}),
            ...(options.ifMatch !== undefined ? { IfMatch: options.ifMatch } : {}),
          })),
        ),
      );
      return { size: body.length, etag: out.ETag ?? '', sha256 };
    } catch (error) {
      if (isPreconditionFailure(error)) throw new PreconditionFailedError(key);
      // If-Match on an object that does not exist: the expected version is not there either.
      if (options.ifMatch !== undefined && isNotFound(error)) throw new PreconditionFailedError(key);
      throw error;
    }
  }

  async listSizes(prefix: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await this.send('LIST', prefix, () =>
        this.call((c, m) => c.send(new m.ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token, MaxKeys: this.listPageSize }))),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined && object.Key.startsWith(this.prefix)) out.set(object.Key.slice(this.prefix.length), object.Size ?? 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async list(prefix: string): Promise<string[]> {
    return [...(await this.listSizes(prefix)).keys()];
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.send('DELETE', key, () => this.call((c, m) => c.send(new m.DeleteObjectCommand({ Bucket: this.bucket, Key }))));
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
  }

  async close(): Promise<void> {
    (await this.client)?.destroy();
  }
}
