import './base.css';
import './tool-images.css';
import './mentions.css';
import './drop-target.css';
import './mcp.css';
import './cards.css';
import './file-edits.css';
