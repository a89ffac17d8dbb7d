// One line of CSV as its fields, as the profilers and Grafana write it: quoted fields with "" escapes, a
// ragged trailing separator, `;` where a locale wants it. No field spans lines in these files.

/** Splits one CSV line (quotes with "" escapes; `sep` for `;`-separated files). */
export function csvFields(line: string, sep = ','): string[] {
  const out: string[] = [];
  let i = 0;
  const n = line.length;
  while (i <= n) {
    if (line[i] === '"') {
      let v = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) {
          v += line.slice(i);
          i = n;
          break;
        }
        v += line.slice(i, q);
        if (line[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(v);
      if (line[i] === sep) i++;
      else break;
    } else {
      const c = line.indexOf(sep, i);
      if (c < 0) {
        out.push(line.slice(i));
        break;
      }
      out.push(line.slice(i, c));
      i = c + 1;
    }
    if (i === n) break;
  }
  return out;
}
