// Saves bytes the engine answered as a file the user downloads (browser mode, and the desktop app's own
// download prompt): a Blob URL clicked once, revoked after the browser has taken it.

export function saveFile(name: string, content: BlobPart, mime: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
