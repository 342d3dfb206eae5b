// Keyboard navigation: j/k move the selection in the active list, Enter opens it, Delete removes
// it, "/" focuses the search box, Escape leaves a message. One list is active at a time. A focused
// row is the one Enter and Delete act on; a focused button, link or tab keeps those keys. While a
// modal dialog is open none of this applies: the dialog owns the keyboard (Escape closes it).

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

/**
 * A modal dialog is open (dom.ts dialog(), or any other <dialog> shown with showModal()). The page behind it is
 * inert, whatever has the focus: a submit button that was disabled while its request ran drops the focus to
 * <body>, outside the dialog, and a key must not then delete or open what is selected behind it.
 */
function modalOpen(): boolean {
  for (const d of document.querySelectorAll("dialog[open]")) {
    try {
      if (d.matches(":modal")) return true;
    } catch {
      return true; // A browser without :modal: every open dialog of this UI is modal.
    }
  }
  return false;
}

/** What answers Enter (and Space) itself when focused. */
const CONTROL = "a[href], button, summary, [role=button], [role=tab], [role=link], [tabindex]";

/**
 * The row Enter or Delete acts on: the focused row, or the selected one when the focus is on no
 * control; -1 when a control other than a row has the focus (a button, a tab, a link in a card):
 * the key is that control's own, and Delete then removes nothing.
 */
function target(l: KeyList, t: EventTarget | null, cur: number): number {
  const el = t instanceof HTMLElement && t !== document.body ? t : null;
  if (!el) return cur;
  const rows = l.rows();
  const row = rows.indexOf(el);
  if (row >= 0) return row;
  return el.closest(CONTROL) ? -1 : cur;
}

/** Selects row i; a row that had the focus hands it on, so Enter opens what is selected. */
function move(l: KeyList, i: number): void {
  const hadFocus = l.rows().some((r) => r === document.activeElement);
  l.select(i);
  if (hadFocus) l.rows()[i]?.focus({ preventScroll: true });
}

export function installKeys() {
  document.addEventListener("keydown", (e) => {
    // Not even preventDefault() under a modal: Escape is the dialog's (the browser closes it), the rest the form's.
    if (e.ctrlKey || e.metaKey || e.altKey || modalOpen() || typing(e.target)) return;
    if (e.key === "/") {
      // The innermost visible one: the message search over the inbox search, none hidden on a phone.
      const search = [...document.querySelectorAll<HTMLInputElement>("input[type=search]")].filter((i) => i.offsetParent !== null).at(-1);
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
        if (n) move(l, Math.min(n - 1, cur < 0 ? 0 : cur + 1));
        break;
      case "k":
      case "ArrowUp":
        if (n) move(l, Math.max(0, cur < 0 ? 0 : cur - 1));
        break;
      case "Enter":
      case "o": {
        const at = e.key === "Enter" ? target(l, e.target, cur) : cur;
        if (at >= 0 && l.open) l.open(at);
        else return;
        break;
      }
      case "Delete":
      case "#": {
        const at = e.key === "Delete" ? target(l, e.target, cur) : cur;
        if (at >= 0 && l.remove) l.remove(at);
        else return;
        break;
      }
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
