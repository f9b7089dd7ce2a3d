// A few inline SVG icons (stroke icons on a 16 px grid). Inline SVG needs no icon font and
// no emoji font, so it renders the same on every OS; it inherits the text colour.
const PATHS = {
  trash: 'M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5M7 7v4M9 7v4',
  file: 'M4 1.5h5l3 3v10H4zM9 1.5v3h3',
  link: 'M6.5 9.5l3-3M7 4.5l1-1a2.5 2.5 0 013.5 3.5l-1 1M9 11.5l-1 1A2.5 2.5 0 014.5 9l1-1',
  mail: 'M2 4h12v8H2zM2 4l6 5 6-5',
  graph: 'M8 2v3M8 11v3M4.5 8h7M3 5h10v6H3z',
  spark: 'M8 1.5l1.6 4.9 4.9 1.6-4.9 1.6L8 14.5l-1.6-4.9L1.5 8l4.9-1.6z',
  close: 'M4 4l8 8M12 4l-8 8',
  pencil: 'M10.5 2.5l3 3-8 8H2.5v-3zM9 4l3 3',
  'chevron-left': 'M10 3L5 8l5 5',
  'chevron-right': 'M6 3l5 5-5 5',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      className={`icon${className ? ` ${className}` : ''}`}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.4"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
