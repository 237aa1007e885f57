import { MemoryStorage } from './memory-storage.ts';
import { runStorageAcceptanceTests } from '../../testing/storage-acceptance.ts';

runStorageAcceptanceTests('in-memory', () => ({ storage: new MemoryStorage(), cleanup: () => {} }));
