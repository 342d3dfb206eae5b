// Keyboard navigation: j/k move the selection in the active list, Enter opens it, Delete removes
// it, "/" focuses the search box, Escape leaves a message. One list is active at a time.

export interface KeyList {
  /** The rows, in display order. */
  rows: () => HTMLElement[];
  selected: () => number;
  select: (i: number) => void;
  open?: (i: number) => void;
  remove?: (i: number) => void;
  back?: () => void;
}

const stack: KeyList[] = [];

/** Makes `l` the active list until the returned function is called. */
export function pushKeys(l: KeyList): () => void {
  stack.push(l);
  return () => {
    const i = stack.lastIndexOf(l);
    if (i >= 0) stack.splice(i, 1);
  };
}

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) || !!el.closest("dialog");
}

export function installKeys() {
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.key === "/") {
      const search = document.querySelector<HTMLInputElement>("input[type=search]");
      if (search) {
        e.preventDefault();
        search.focus();
      }
      return;
    }
    const l = stack[stack.length - 1];
    if (!l) return;
    const n = l.rows().length;
    const cur = l.selected();
    switch (e.key) {
      case "j":
      case "ArrowDown":
        if (n) l.select(Math.min(n - 1, cur < 0 ? 0 : cur + 1));
        break;
      case "k":
      case "ArrowUp":
        if (n) l.select(Math.max(0, cur < 0 ? 0 : cur - 1));
        break;
      case "Enter":
      case "o":
        if (cur >= 0 && l.open) l.open(cur);
        else return;
        break;
      case "Delete":
      case "#":
        if (cur >= 0 && l.remove) l.remove(cur);
        else return;
        break;
      case "Escape":
      case "u":
        if (l.back) l.back();
        else return;
        break;
      default:
        return;
    }
    e.preventDefault();
  });
}

/** Scrolls a selected row into view inside its scrolling pane. */
export function reveal(row: HTMLElement | undefined) {
  row?.scrollIntoView({ block: "nearest" });
}
