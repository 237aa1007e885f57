import { MemoryStorage } from './memory-storage.ts';
import { runStorageAcceptanceTests } from './storage-acceptance.ts';

runStorageAcceptanceTests('in-memory', () => ({ storage: new MemoryStorage(), cleanup: () => {} }));
