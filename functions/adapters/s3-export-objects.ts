/** Export files in the exports bucket, and pre-signed links to them (S3 checks the signature; no proxying through Lambda). */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ExportObjects } from '../ports/exports.ts';
import { s3ObjectStore } from './s3-objects.ts';

export function s3ExportObjects(client: S3Client, bucket: string): ExportObjects {
  const objects = s3ObjectStore(client, bucket);
  return {
    putFile: (key, path) => objects.putFile(key, path),
    delete: (keys) => objects.delete([...keys]),
    downloadLink: (key, ttlS, fileName) =>
      getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          ResponseContentDisposition: `attachment; filename="${fileName}"`,
        }),
        { expiresIn: ttlS },
      ),
  };
}
