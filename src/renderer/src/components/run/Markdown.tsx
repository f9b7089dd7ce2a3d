// A text part as formatted text: Markdown (with GitHub tables and lists) through
// react-markdown, which never renders raw HTML (a <script> in an answer shows as nothing,
// never runs), then sanitised (rehype-sanitize) before code blocks are highlighted
// (rehype-highlight). Links open outside the app: a new browser tab, or in the desktop app
// the system browser (src/main/electron/security.ts).
import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
};

/** Whether a text uses Markdown syntax at all (else the raw/formatted toggle is noise). */
export function looksLikeMarkdown(text: string): boolean {
  return /(^|\n)\s{0,3}(#{1,6}\s|[-*+]\s|\d+\.\s|>\s|```|\|.*\|)|\*\*|__|`[^`]+`|\[[^\]]+\]\([^)]+\)/.test(text);
}

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeSanitize, rehypeHighlight];

/** Memoised on the text: parsing and highlighting happen once per text, not per render. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
