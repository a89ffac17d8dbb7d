// A zone the bundle states in words, for the files whose times carry none.
//
// Collection scripts write the host's zone beside what they gather: `timedatectl` ("Time zone:
// Asia/Shanghai (CST, +0800)"), a key-value manifest ("timezone: Europe/Berlin", "TZ=America/New_York"),
// a copy of /etc/timezone (one zone name). The zone is the host's: files printed on the host (nvidia-smi,
// dmesg -T) are in it, while an engine in a container mostly logs in UTC whatever the host says. So a
// stated zone is never applied blindly: it is one candidate the pipeline tries on a file that, read as UTC,
// sits poorly within the bundle's absolute times, and keeps only where it places the file better
// (zone-inference.ts, zoneFromCandidates).

/** Unclaimed files larger than this are not manifests (a stated zone sits in a few lines of text). */
export const STATEMENT_MAX_BYTES = 64 * 1024;

/** A zone as stated: an IANA name (its offset follows daylight saving) or a fixed offset in minutes east of UTC. */
export type StatedZone = { name: string } | { minutes: number };

/** "Time zone: …", "timezone = …", "TZ=…", "local time zone: …" on a line of their own. */
const ZONE_LINE = /^[ \t]*(?:local[ \t]+)?(?:time[ \t_-]?zone|tz)[ \t]*[:=][ \t]*"?([^\r\n"]+?)"?[ \t]*$/gim;
/** Area/Location names (Asia/Kolkata, America/Argentina/Buenos_Aires, Etc/GMT+5). */
const IANA_NAME = /\b([A-Z][A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+)\b/;
/** +0800, +08:00, -0530, UTC+8, GMT-05:00 (the minus may be U+2212). */
const OFFSET = /(?:^|[\s(,]|UTC|GMT)([+\-−])(\d{1,2})(?::?(\d{2}))?(?=$|[\s),])/;
const UTC_WORDS = /^(?:UTC|GMT|Z|Etc\/UTC|Etc\/GMT|Universal|Zulu)\b/i;

/** Whether Intl knows the zone name (a typo or a made-up area throws RangeError). */
function knownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone a stated value names, or null where it names none this reader can place. */
export function parseZoneValue(value: string): StatedZone | null {
  const v = value.trim();
  const name = IANA_NAME.exec(v)?.[1];
  // The name first: it follows daylight saving where the printed offset is the one day's.
  if (name && knownZone(name)) return { name };
  const off = OFFSET.exec(v);
  if (off) {
    const h = Number(off[2]);
    const m = Number(off[3] ?? 0);
    if (h <= 14 && m < 60) return { minutes: (off[1] === '+' ? 1 : -1) * (h * 60 + m) };
  }
  if (UTC_WORDS.test(v)) return { minutes: 0 };
  return null;
}

/**
 * The zone a small text file states, or null: the first "time zone: …" line whose value names one, or the
 * whole of a file named `timezone` (a copy of /etc/timezone).
 */
export function statedZone(text: string, fileName: string): StatedZone | null {
  for (const m of text.matchAll(ZONE_LINE)) {
    const z = parseZoneValue(m[1]);
    if (z) return z;
  }
  if (/^timezone$/i.test(fileName)) {
    const line = text.trim();
    if (!line.includes('\n')) return parseZoneValue(line);
  }
  return null;
}

/** Minutes east of UTC of `zone` at the instant `ms` (an IANA name's offset of that day). */
export function zoneOffsetAt(zone: StatedZone, ms: number): number {
  if ('minutes' in zone) return zone.minutes;
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone.name, timeZoneName: 'longOffset' }).formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  // "GMT+05:30", "GMT-04:00", or "GMT" for UTC itself.
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(part);
  return m ? (m[1] === '+' ? 1 : -1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}
