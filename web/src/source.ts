/**
 * Source lines around a sampled line. The server shows files only under directories the user named
 * (`--source-dir`) or confirmed here: when it refuses a file it offers the directories that would
 * show it (the run's directory from the profile, the file's own), and the panel asks the user to
 * confirm one. A profile's metadata never allows a directory by itself.
 */
import { el } from './api.js';

interface SourceAnswer {
  file: string;
  line: number;
  lines: Array<{ line: number; text: string }>;
}

interface Refusal {
  error?: string;
  /** Directories the user may confirm so that the file shows. */
  confirm?: string[];
}

export async function showSource(file: string, line: number): Promise<void> {
  const box = document.getElementById('source')!;
  box.replaceChildren();
  const head = el('header');
  const close = el('button', {}, '×');
  close.onclick = () => (box.hidden = true);
  head.append(el('span', {}, `${file}:${line}`), close);
  box.append(head);
  box.hidden = false;
  const res = await fetch(`/api/source?${new URLSearchParams({ file, line: String(line), context: '10' })}`);
  const body = (await res.json()) as SourceAnswer & Refusal;
  if (res.ok) {
    const pre = el('pre');
    for (const l of body.lines) {
      const row = el('span', { class: l.line === line ? 'hot' : '', 'data-line': String(l.line) });
      row.append(el('span', { class: 'ln' }, String(l.line)), document.createTextNode(`${l.text}\n`));
      pre.append(row);
    }
    box.append(pre);
    return;
  }
  const why = el('div', { class: 'muted', style: 'padding:6px' }, `source not shown: ${body.error ?? `HTTP ${res.status}`}`);
  box.append(why);
  for (const dir of body.confirm ?? []) box.append(confirmButton(dir, file, line));
}

/** "Confirm this directory": allow files under `dir` for this viewer, then show the file again. */
function confirmButton(dir: string, file: string, line: number): HTMLElement {
  const row = el('div', { class: 'confirm-dir', style: 'padding:2px 6px' });
  const button = el('button', { 'data-dir': dir }, `confirm this directory: show source files under ${dir}`);
  button.onclick = async () => {
    const res = await fetch(`/api/source-dir?${new URLSearchParams({ dir })}`, { method: 'POST', headers: { 'x-hyprof-page': '1' } });
    if (res.ok) return showSource(file, line);
    const body = (await res.json()) as Refusal;
    row.append(el('span', { class: 'muted' }, ` not allowed: ${body.error ?? `HTTP ${res.status}`}`));
  };
  row.append(button);
  return row;
}
