import { FsDriver } from './fs.ts';
import type { StorageDriver } from './driver.ts';

/** The driver for a location given on the command line: a folder, or s3://bucket/prefix. */
export function openStorage(location: string): StorageDriver {
  if (location.startsWith('s3://')) {
    throw new Error('s3:// locations are not supported yet');
  }
  return new FsDriver(location);
}
