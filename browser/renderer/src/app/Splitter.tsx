// A draggable, keyboard-operable divider between two panes.
import { useRef } from 'react';

interface Props {
  orientation: 'vertical' | 'horizontal';
  value: number;
  min: number;
  max: number;
  label: string;
  onChange(px: number): void;
}

export function Splitter({ orientation, value, min, max, label, onChange }: Props) {
  const start = useRef<{ pos: number; value: number } | null>(null);
  const clamp = (v: number) => Math.max(min, Math.min(max, v));
  const pos = (e: React.PointerEvent) => (orientation === 'vertical' ? e.clientX : e.clientY);
  return (
    <div
      className={`splitter splitter-${orientation}`}
      role="separator"
      aria-orientation={orientation}
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        start.current = { pos: pos(e), value };
      }}
      onPointerMove={(e) => {
        if (start.current) onChange(clamp(start.current.value + pos(e) - start.current.pos));
      }}
      onPointerUp={() => (start.current = null)}
      onKeyDown={(e) => {
        const dec = orientation === 'vertical' ? 'ArrowLeft' : 'ArrowUp';
        const inc = orientation === 'vertical' ? 'ArrowRight' : 'ArrowDown';
        if (e.key === dec || e.key === inc) {
          e.preventDefault();
          e.stopPropagation();
          onChange(clamp(value + (e.key === inc ? 24 : -24)));
        }
      }}
    />
  );
}
