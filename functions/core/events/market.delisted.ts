import { common, declaration, type EventDefinition } from './declare.ts';

const VENUES = ['perpx', 'hip3', 'altx', 'altx-rh'] as const;

export default {
  declaration: declaration({
    type: 'market.delisted',
    live: false,
    description: 'A market flipped inactive',
    scope: 'public',
    venues: VENUES,
    scopeKeys: ['venue', 'symbols'],
    params: {},
    metrics: common(VENUES),
  }),
} satisfies EventDefinition<'market.delisted'>;
