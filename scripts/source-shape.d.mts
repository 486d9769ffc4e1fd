export const maxFileLines: number;
export const maxFunctionLines: number;
export function tsFiles(root: string, dir?: string): string[];
export function longFiles(root: string, files: readonly string[]): { file: string; lines: number }[];
export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}
export function functionLengths(file: string, text: string): FunctionLength[];
export function longFunctions(root: string, files: readonly string[]): FunctionLength[];
