/**
 * Where code written before profiles became modules finds them: the registry is profiles/index.ts, what a profile is
 * profiles/profile.ts. New code imports those; this file goes once mco/ and test/reference/upstream/ do.
 */
export { DEFAULT_PROFILE, getProfile, PROFILES, type ProfileName } from './profiles/index.js';
export type { McoBuild, Profile } from './profiles/profile.js';
