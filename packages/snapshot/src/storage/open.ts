import { FsDriver } from './fs.ts';
import { S3Driver, s3OptionsFromEnv } from './s3.ts';
import type { StorageDriver } from './driver.ts';

/**
 * The driver for a location given on the command line: a folder, or s3://bucket/prefix (configured
 * by AWS_REGION, the SDK's default credential chain and SNAPDECK_S3_ENDPOINT; see s3.ts).
 */
export function openStorage(location: string, env: NodeJS.ProcessEnv = process.env): StorageDriver {
  if (location.startsWith('s3://')) return new S3Driver(location, s3OptionsFromEnv(env));
  return new FsDriver(location);
}
