import { runConnectionAcceptanceTests } from '../../testing/connection-acceptance.ts';
import { memoryConnectionPair } from './memory-transport.ts';

runConnectionAcceptanceTests('in-memory', async () => ({ ...memoryConnectionPair(), cleanup: async () => {} }));
