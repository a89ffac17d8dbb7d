// The tables of an Nsight Systems SQLite export as `nsys export --type sqlite` writes them (2023–2024
// releases; the columns the importer reads and a few it does not), for tests and fuzz seeds that build
// small exports of their own. Each is one statement.
export const NSYS_DDL = {
  strings: 'CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)',
  session: 'CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)',
  runtime: 'CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL)',
  kernel:
    'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER)',
  memory:
    'CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL, correlationId INTEGER)',
  /** The names a small export's calls and kernels use: 1 cudaMalloc, 2 cudaLaunchKernel, 3 and 4 a kernel's demangled and short names, 5 cudaFree. */
  someStrings: "INSERT INTO StringIds VALUES (1, 'cudaMalloc_v3020'), (2, 'cudaLaunchKernel_v7000'), (3, 'void gemm<float>(float*)'), (4, 'gemm'), (5, 'cudaFree_v3020')",
};
