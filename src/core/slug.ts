/**
 * A filesystem- and ref-safe slug from a ticket or label: letters with diacritics lose them
 * ("Über" -> "uber"), anything else outside [a-z0-9._-] becomes "-", no leading dot or dash,
 * no "..", no ".lock" ending, at most 48 characters. Never empty.
 */
export function slugify(text: string, fallback = 'session'): string {
  const base = text
    .replace(/\u00df/g, 'ss') // ß
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 48)
    .replace(/[.-]+$/g, '')
    .replace(/\.lock$/, '-lock');
  return base || fallback;
}

/** Ref-safe form of a session id for refs/lanes/snapshots/<id>/ (':' is not allowed in ref names). */
export function refSafeSessionId(id: string): string {
  return id.replace(/%/g, '%25').replace(/:/g, '%3A');
}

export function sessionIdFromRefPart(part: string): string {
  return part.replace(/%3A/g, ':').replace(/%25/g, '%');
}
