/** A request header by name, whatever case the client sent it in (REST API events keep the client's case). */
export function headerValue(headers: Readonly<Record<string, string | undefined>> | null | undefined, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === wanted)?.[1];
}
