/** The success envelope every data route answers with. */
export interface Meta {
  count: number;
  /** On cursor-paged routes: whether another page follows. */
  has_more?: boolean;
  /** Present exactly when `has_more` is true; pass it back as `cursor`. */
  next_cursor?: string;
  request_id: string;
  [member: string]: unknown;
}

export interface Page<T> {
  success: true;
  data: T;
  meta: Meta;
  /** Members some webhook routes send beside `data`: `note`, `limit`, `gap`, `resumed_count`. */
  [sibling: string]: unknown;
}
