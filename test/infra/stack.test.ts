// The template assertions on the default synthesis (both stages, cdk.json's flags, cdk-nag, CDK's
// template validation, no bundling) run in this one jest file: loading aws-cdk-lib and cdk-nag
// and starting the validation engine cost seconds in every file that does it, and these specs
// only read the one synthesis (test/infra/synth.ts shares it). Each spec stays in its own file,
// named for what it checks. The app with the account role kept is synthesised here too, reusing
// all of that. The bundle test and the stage-configuration variants synthesise apps of their own,
// in their own files, so jest runs them beside this one.

import './api.spec';
import './data-and-observability.spec';
import './functions.spec';
import './nag.spec';
import './dashboard.spec';
import './local-context.spec';
import './releases.spec';
import './account-role-keep.spec';
import './v2.spec';
