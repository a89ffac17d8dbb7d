// The bundled demo incident's name: the engine imports it under this name, the workstation opens it
// on a workspace that holds nothing else.
export const DEMO_NAME = 'Demo: KV-cache exhaustion after a traffic surge';
