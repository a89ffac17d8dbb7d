// The user's notes on time ranges (the URL and test ids keep the name 'annotations').
import { definePanel } from '../panel';
import { Annotations } from './Annotations';

export default definePanel({ id: 'annotations', title: 'Notes', component: Annotations });
