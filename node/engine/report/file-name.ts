// What downloads are called: the incident's name as a file-name slug, never a shared fixed name.

/** "vLLM prod-a & friends" → "vllm-prod-a-friends" (letters, digits, '.', '_' and '-', at most 80). */
export function fileSlug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/-{2,}/g, '-')
    .slice(0, 80)
    .toLowerCase();
}
