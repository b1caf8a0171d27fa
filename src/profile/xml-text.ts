/**
 * Text inside the XML of TAU's profiles (the metadata of a profile file's header, the merged
 * format): escaped as TAU writes it, unescaped as its readers read it.
 */

export function escapeXml(s: string): string {
  // Newlines would break the one-line header TAU's readers expect.
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[\r\n]+/g, ' ');
}

export function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
