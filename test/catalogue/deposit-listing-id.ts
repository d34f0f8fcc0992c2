// The listing id of a deposited item as the tests expect it, written independently of the SQL that
// makes it (catalogue_add_deposit_items): the first 40 hex digits of sha256('deposit:<id>:<asset>').
import crypto from 'node:crypto';

export function depositListingId(depositId: number, assetId: string): string {
  return crypto.createHash('sha256').update(`deposit:${depositId}:${assetId}`).digest('hex').slice(0, 40);
}
