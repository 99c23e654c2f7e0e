/**
 * Whether a link's visible label names an address (a host, a URL, an e-mail address) other
 * than where the link goes: "[paypal.com](https://evil.example)", "[Log in at paypal.com](…)",
 * "[pаypal.com](…)" with a Cyrillic "а". Such a label must not be the link's only face.
 * Every host-like word in the label counts, after Unicode normalisation, so look-alikes and
 * addresses inside a sentence are caught too. Words like "Node.js" are caught as well: the
 * cost of that is only that the real address is shown beside them.
 */
export function labelDisguisesTarget(label: string, target: string): boolean {
  const targetHost = hostOf(target);
  const text = label.normalize("NFKC").toLowerCase();
  for (const match of text.matchAll(HOST_LIKE)) {
    const host = normalHost(match[1] ?? "");
    if (host && host !== targetHost) return true;
  }
  return false;
}

// A run of labels joined by dots ending in a letters-only top-level label, optionally
// preceded by a scheme or a user@ part.
const HOST_LIKE =
  /(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^\s@/<>()]+@)?((?:[\p{L}\p{N}-]+\.)+\p{L}{2,})\.?/gu;

function hostOf(target: string): string {
  try {
    const url = new URL(target);
    if (url.protocol === "mailto:") return normalHost(url.pathname.split("@")[1] ?? "");
    return normalHost(url.hostname);
  } catch {
    return "";
  }
}

function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^www\./, "");
}
