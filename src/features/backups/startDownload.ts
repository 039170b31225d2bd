/**
 * Starts the browser's download of a signed URL the way a link would, right after it was
 * fetched: the URL expires within minutes, so it is used at once and kept nowhere.
 */
export function startDownload(url: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = '';
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}
