// Entry of the user-SQL child process when the engine runs from its TypeScript sources (CLI, bridge).
import { sqlChildMain } from './sql-child';

await sqlChildMain();
