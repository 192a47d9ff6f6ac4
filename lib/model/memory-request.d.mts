export const MEMORY_INSTRUCTIONS: string;
export const MAX_CHANGES: number;
export interface MemoryChanges {
  add: string[];
  update: { id: string; text: string }[];
  delete: string[];
}
export function memoryRequestText(memories: readonly { id: string; text: string }[], exchange: { user: string; assistant: string }): string;
export function readMemoryRequest(text: string): { memories: { id: string; text: string }[]; exchange: { user: string; assistant: string } } | undefined;
export function memoryChanges(answer: string, maxChars: number): MemoryChanges | null;
export function factOf(statement: string): string | undefined;
export function offlineMemoryAnswer(requestText: string): string;
