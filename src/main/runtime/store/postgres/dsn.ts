// A PostgreSQL DSN's password kept out of everything shown: the management API's memory
// config (spec 4.2) and the store's own errors.

/** postgresql://user:secret@host/db -> postgresql://user:***@host/db */
export function redactDsn(dsn: string | null): string | null {
  if (!dsn) return null;
  try {
    const u = new URL(dsn);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return dsn.replace(/(:\/\/[^:/@]+:)[^@]*@/, '$1***@').replace(/(password=)[^\s&]+/gi, '$1***');
  }
}

/** Takes a DSN's password out of whatever a driver error says. */
export function scrub(message: string, dsn: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(dsn).password);
  } catch {
    password = /password=([^\s&]+)/i.exec(dsn)?.[1] ?? '';
  }
  const safe = password ? message.split(password).join('***') : message;
  return safe.split(dsn).join(redactDsn(dsn) ?? '');
}
