#!/usr/bin/env node
// The CLI entry: TypeScript sources run through tsx, so the CLI works straight from a checkout.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../node/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
