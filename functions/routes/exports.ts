/** Bulk export jobs. */
import * as v from 'valibot';
import {
  CreateExportBody,
  CreateExportHeaders,
  DownloadQuery,
  ExportDownloadSchema,
  ExportJobSchema,
  ExportQuoteSchema,
  ListExportsQuery,
  exportFilePath,
  exportIdPath,
} from '#schemas/exports.ts';
import { type HttpMethod, operationGroup, page } from './operation.ts';

const exportRoute = (method: HttpMethod, path: string) => ({ method, path: `/v1/exports${path}`, tags: ['Exports'] });

/** Bulk export jobs (SPEC "Limits"; shapes after Databento's and Tardis' batch downloads). */
export const EXPORT_OPERATIONS = operationGroup('exports', {
  createExport: {
    ...exportRoute('POST', ''),
    summary: 'Quote an export and start it as a job (202), or only quote it with dry_run (200); an Idempotency-Key header makes a retry return the same job',
    headers: CreateExportHeaders,
    body: CreateExportBody,
    response: page(v.union([ExportJobSchema, ExportQuoteSchema]), 'The job (queued), or the quote of a dry run', 202),
  },
  listExports: {
    ...exportRoute('GET', ''),
    summary: "The caller's export jobs, newest first",
    query: ListExportsQuery,
    response: page(v.array(ExportJobSchema), 'Export jobs'),
  },
  getExport: {
    ...exportRoute('GET', '/{id}'),
    summary: 'One export job: state, progress, price; its files once completed',
    pathParams: exportIdPath,
    response: page(ExportJobSchema, 'The job'),
  },
  cancelExport: {
    ...exportRoute('DELETE', '/{id}'),
    summary: 'Cancel a queued or running job; files already written are removed',
    pathParams: exportIdPath,
    response: page(ExportJobSchema, 'The job, canceled'),
  },
  getExportFile: {
    ...exportRoute('GET', '/{id}/files/{name}'),
    summary: 'A pre-signed download link for one file of a completed job, valid 5 minutes (redirect=true answers 307 with it in Location)',
    pathParams: exportFilePath,
    query: DownloadQuery,
    response: page(ExportDownloadSchema, 'The link'),
  },
});
