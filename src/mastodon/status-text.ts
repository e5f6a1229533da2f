/** Plain status text as Mastodon clients get it: its hashtags and its HTML `content`. */
import { escapeHtml } from '../http/escape-html.ts';
import { tagUrl } from './status-entity.ts';
import { tagName } from './timeline.ts';

/** Hashtags in plain status text (`#name`, not inside a word), lower case, once each. */
export function hashtagsOf(text: string): string[] {
  const names = [...text.matchAll(/(?<![\p{L}\p{N}_&/])#([\p{L}\p{N}_]+)/gu)].map((match) => tagName(match[1]!));
  return [...new Set(names.filter((name): name is string => name !== null))];
}

/**
 * Plain status text as the HTML `content` Mastodon clients show: escaped, paragraphs and line breaks kept,
 * hashtags linked to this server's timeline of the tag (with the classes clients look for).
 */
export function contentHtml(text: string, origin: string): string {
  const linked = (line: string) =>
    escapeHtml(line).replace(/(?<![\p{L}\p{N}_&/])#([\p{L}\p{N}_]+)/gu, (whole, name: string) => {
      const tag = tagName(name);
      return tag ? `<a href="${escapeHtml(tagUrl(origin, tag))}" class="mention hashtag" rel="tag">#<span>${name}</span></a>` : whole;
    });
  return text.split(/\r?\n\s*\r?\n/).map((paragraph) => `<p>${paragraph.split(/\r?\n/).map(linked).join('<br>')}</p>`).join('');
}
